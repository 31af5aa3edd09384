package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_NODE;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assigned;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.finished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.init;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.log;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.reset;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.returned;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sinkFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sourcesFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.state;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.wordCount;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Job event logs that do not fit the job graph: the recovery planner rejects them, naming the event and why. */
class RecoveryPlannerMalformedLogTest {
    @Test
    void eventsThatDoNotFitTheGraphAreRejected() {
        JobGraph graph = wordCount();
        assertMalformed(graph, List.of(finished(5, 0, 0, "tm-1")), "job event #0", "names vertex 5",
                "has 2 vertices");
        assertMalformed(graph, List.of(finished(0, 2, 0, "tm-1", 0)), "names subtask 2 of vertex 0, which has 2");
        assertMalformed(graph, log(sourcesFinished(), sinkFinished(1, 2, 0, "tm-1", "x")), "job event #7",
                "subtask 2 of vertex 1");
        assertMalformed(graph, List.of(sinkFinished(1, 0, 0, "tm-1", "x")),
                "no earlier VertexInitialized decided the parallelism of vertex 1");
        assertMalformed(graph, List.of(reset(-1, 0, 1)), "names vertex -1");
        assertMalformed(graph, List.of(reset(0, 0, -1)), "attempt -1");
        assertMalformed(graph, List.of(assigned(1, 0, 0, "a")), "plan node 1, which is not a source");
        assertMalformed(graph, List.of(state(7, "s")), "plan node 7, which is not a source");
        assertMalformed(graph, List.of(returned(0, 3, 1)), "subtask 3 of vertex 0");
        assertMalformed(graph, List.of(init(0, 5)), "fixes it at 2");
        assertMalformed(graph, List.of(init(1, 2, 0, 128)), "with 2 range bounds", "needs 3");
        assertMalformed(graph, List.of(init(1, 0)), "parallelism 0");
        assertMalformed(graph, List.of(finished(0, 0, 0, "tm-1", 3)), "edge 3");
        assertMalformed(graph, List.of(JobEvent.newBuilder().setTimestampMs(1).build()), "has no known type");
        assertMalformed(graph, log(reset(0, 0, 2), assigned(SOURCE_NODE, 0, 1, "a")), "reset to #2");
        assertMalformed(graph, log(assigned(SOURCE_NODE, 0, 2, "a"), assigned(SOURCE_NODE, 0, 1, "b")),
                "after #2 got splits");
    }

    private static void assertMalformed(JobGraph graph, List<JobEvent> events, String... messageParts) {
        assertThatThrownBy(() -> RecoveryPlanner.plan(graph, events, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll(messageParts);
    }
}

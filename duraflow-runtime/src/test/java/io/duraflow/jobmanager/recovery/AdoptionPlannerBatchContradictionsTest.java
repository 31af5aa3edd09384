package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batch;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batchPlan;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.consumer;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.key;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.pid;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.reader;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcePartitionsKept;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcesFinishedConsumersDeployed;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streaming;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Rule 1 and 2b of {@link AdoptionPlanner}: reports of a batch job's tasks that contradict the log
 * or each other make the whole job fall back, so that nothing is adopted.
 */
class AdoptionPlannerBatchContradictionsTest {
    private void assertFallback(AdoptionPlan plan, String reason) {
        assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
        assertThat(plan.fallbackReason()).isEqualTo(reason);
        assertThat(plan.adopted()).isEmpty();
        assertThat(plan.notes().get(0)).contains("FALLBACK (" + reason + ")");
        plan.restarted().forEach(restart -> assertThat(restart.reason()).isEqualTo("adoption fell back: " + reason));
    }

    @Test
    void theSameAttemptReportedByTwoTaskManagers() {
        ReportedTask one = consumer(0, 0, "tm-a");
        ReportedTask two = consumer(0, 0, "tm-b");
        ReportedTask innocent = consumer(1, 0, "tm-b");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(one, two, innocent));

        assertFallback(plan, "v1/0#0 is reported twice, by tm-a and tm-b (an attempt is deployed once)");
        assertThat(plan.toCancel()).containsExactly(one, two, innocent);
        assertThat(plan.finished()).hasSize(2);
        assertThat(plan.recovery().nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(1, 1), 1));
    }

    @Test
    void aFinishedTaskReportedWithOtherPartitionsThanTheLog() {
        ReportedTask other = batch("tm-a", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                List.of(new ReportedTask.OutputPartition(0, "somewhere-else")), List.of());

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(other, consumer(0, 0, "tm-a")));

        assertFallback(plan, "v0/0#0 on tm-a reports partitions [edge 0: somewhere-else], but the log says it"
                + " produced [edge 0: " + pid(0, 0, 0, 0) + "]");
        assertThat(plan.decision(0, 0)).isEqualTo(new TaskDecision.AlreadyFinished(key(0, 0), 0, "tm-a"));
    }

    @Test
    void aFinishedTaskReportedOnAnotherTaskManager() {
        ReportedTask moved = batch("tm-c", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                List.of(new ReportedTask.OutputPartition(0, pid(0, 0, 0, 0))), List.of());

        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(moved)),
                "v0/0#0 on tm-c is reported finished there, but the log says it finished on tm-a");
    }

    @Test
    void aTaskTheLogSaysFinishedReportedRunning() {
        ReportedTask running = reader(0, 0, "tm-a", "split-0");

        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(running)),
                "v0/0#0 on tm-a is reported RUNNING, but the log says it finished");
    }

    @Test
    void aFinishedTaskReportedAsTheLogSaysIsNoContradiction() {
        ReportedTask same = batch("tm-a", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                List.of(new ReportedTask.OutputPartition(0, pid(0, 0, 0, 0))), List.of());

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(same, consumer(0, 0, "tm-a"), consumer(1, 0, "tm-b")));

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
    }

    @Test
    void aVertexOrSubtaskOrParallelismTheLogDoesNotHave() {
        ReportedTask noVertex = batch("tm-a", 7, 0, 0, ReportedTask.State.RUNNING, List.of(), List.of(), List.of());
        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(noVertex)),
                "v7/0#0 on tm-a names vertex 7, but the job graph has 2 vertices");

        ReportedTask noSubtask = consumer(0, 0, "tm-a");
        noSubtask = new ReportedTask("tm-a", key(1, 2), 0, ReportedTask.State.RUNNING, 2, "s",
                noSubtask.progress());
        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(noSubtask)),
                "v1/2#0 on tm-a names a subtask of v1, which has 2 subtasks");

        ReportedTask otherParallelism = new ReportedTask("tm-a", key(1, 0), 0, ReportedTask.State.RUNNING, 3, "s",
                consumer(0, 0, "tm-a").progress());
        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(otherParallelism)), "v1/0#0 on tm-a runs with parallelism 3, but v1 has 2");
    }

    @Test
    void streamingFactsForABatchJob() {
        assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(streaming(1, 0, 0, "tm-a", 0, 0, 0))),
                "v1/0#0 on tm-a reports streaming progress for a batch job");
    }

    @Test
    void aTaskOfAVertexWhoseLayoutIsNotLoggedIsCancelledWithoutContradiction() {
        List<JobEvent> log = sourcesFinishedConsumersDeployed();
        log.remove(log.size() - 1);  // v1's VertexInitialized was not flushed
        ReportedTask unlogged = consumer(0, 0, "tm-a");

        AdoptionPlan plan = batchPlan(log, sourcePartitionsKept(), List.of(unlogged));

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
        assertThat(plan.decisions()).containsOnlyKeys(key(0, 0), key(0, 1));
        assertThat(plan.toCancel()).containsExactly(unlogged);
        assertThat(plan.highestAttempts()).containsEntry(key(1, 0), 0);
    }
}

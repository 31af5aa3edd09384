package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.TestJobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PipelinedSchedulingTest {
    /** source (2) -> keyed reduce (3) -> collect, in streaming mode. */
    private static JobGraph streamingJob() {
        JobBuilder job = new JobBuilder("streaming");
        job.fromSource("numbers", new SequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(3)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    private final ExecutionGraph executions = new ExecutionGraph("job-1", streamingJob());
    private final PipelinedScheduling scheduling = new PipelinedScheduling(executions);
    private final List<String> deployed = new ArrayList<>();

    private SchedulingStrategy.Deployer slots(int free) {
        int[] left = {free};
        return execution -> {
            if (left[0] == 0) {
                return false;
            }
            left[0]--;
            deployed.add(execution.vertex() + "/" + execution.subtask());
            execution.transition(ExecutionState.DEPLOYING, "test");
            return true;
        };
    }

    @Test
    void everyTaskGoesOutAtOnceProducersFirstWithoutWaitingForInputsToFinish() {
        assertThat(scheduling.schedule(0, slots(10))).isEqualTo(SchedulingStrategy.NOTHING_WAITING);
        assertThat(deployed).containsExactly("0/0", "0/1", "1/0", "1/1", "1/2");
    }

    @Test
    void eachConsumerSubtaskReadsItsOwnSubpartition() {
        assertThat(executions.ranges(0)).containsExactly(0, 1, 2);
        assertThat(executions.ranges(1)).containsExactly(0, 1, 2, 3);
        // ... so a producer writes one subpartition per consumer subtask, not one per key group.
        int sourceToReduce = streamingJob().vertex(0).outputs().get(0);
        assertThat(scheduling.subpartitions(sourceToReduce)).isEqualTo(3);
    }

    @Test
    void outOfSlotsStopsAndTheRestGoesOutWhenSlotsAreFreed() {
        assertThat(scheduling.schedule(0, slots(3))).isEqualTo(SchedulingStrategy.OUT_OF_SLOTS);
        assertThat(deployed).containsExactly("0/0", "0/1", "1/0");
        assertThat(scheduling.schedule(0, slots(10))).isEqualTo(SchedulingStrategy.NOTHING_WAITING);
        assertThat(deployed).containsExactly("0/0", "0/1", "1/0", "1/1", "1/2");
    }

    @Test
    void afterARestartTheWholeJobWaitsForTheDelayAndGoesOutTogether() {
        for (Execution execution : executions.all()) {
            execution.transition(ExecutionState.CANCELED, "restart");
            executions.reset(execution, execution.subtask() == 0 ? 1_000 : 1_200, "restart");
        }
        assertThat(scheduling.schedule(1_100, slots(10))).isEqualTo(1_200);
        assertThat(deployed).isEmpty();
        assertThat(scheduling.schedule(1_200, slots(10))).isEqualTo(SchedulingStrategy.NOTHING_WAITING);
        assertThat(deployed).hasSize(5);
    }

    @Test
    void aBatchGraphWithARuntimeParallelismIsRefused() {
        assertThatThrownBy(() -> new PipelinedScheduling(new ExecutionGraph("job-2", TestJobs.wordCount(4))))
                .hasMessageContaining("of a streaming job has no fixed parallelism");
    }
}

package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.TestJobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.Decision;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.FailJob;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.Reset;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.Restart;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.TaskFailed;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy.TaskManagerLost;
import io.duraflow.rpc.proto.SubpartitionSizes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link BatchFailoverStrategy}, one test each, on the three-stage graph
 * (source p=2 -> reduce p=2 -> final, decided at runtime) with hand-set execution states.
 */
class BatchFailoverStrategyTest {
    private final ExecutionGraph graph = new ExecutionGraph("job-1", TestJobs.threeStages());
    private final BatchFailoverStrategy strategy = new BatchFailoverStrategy();

    private Execution execution(int vertex, int subtask) {
        return graph.executions(vertex)[subtask];
    }

    private Execution finishedOn(int vertex, int subtask, String tmId) {
        Execution execution = running(vertex, subtask, tmId);
        execution.transition(ExecutionState.FINISHED, "test");
        List<SubpartitionSizes> outputs = new ArrayList<>();
        for (int edge : graph.jobGraph().vertex(vertex).outputs()) {
            outputs.add(SubpartitionSizes.newBuilder().setEdgeId(edge).setPartitionId(execution.partitionId(edge))
                    .addBytes(10).build());
        }
        graph.finished(execution, outputs, List.of(), 0, 0);
        return execution;
    }

    private Execution running(int vertex, int subtask, String tmId) {
        Execution execution = execution(vertex, subtask);
        execution.assign(tmId, "127.0.0.1:1");
        execution.transition(ExecutionState.DEPLOYING, "test");
        execution.transition(ExecutionState.RUNNING, "test");
        return execution;
    }

    private Execution failed(int vertex, int subtask, String tmId) {
        Execution execution = running(vertex, subtask, tmId);
        execution.transition(ExecutionState.FAILED, "test");
        return execution;
    }

    private static List<Execution> resetExecutions(Decision decision) {
        assertThat(decision).isInstanceOf(Restart.class);
        return ((Restart) decision).resets().stream().map(Reset::execution).toList();
    }

    @Test
    void rule1NonRetriableFailureFailsTheJobAtOnceWithRestartsLeft() {
        Execution task = failed(1, 0, "tm-1");

        Decision decision = strategy.onFailure(graph, new TaskFailed(task, "LinkageError: no class Foo", null, true), 0);

        assertThat(decision).isInstanceOf(FailJob.class);
        assertThat(((FailJob) decision).cause()).startsWith("LinkageError: no class Foo").contains("not retried");
    }

    @Test
    void rule2ConsumerOfAPartitionWhoseProducerRunsAgainIsResetAloneWithoutARestart() {
        finishedOn(0, 0, "tm-1");
        Execution consumer = failed(1, 0, "tm-2");
        String gone = execution(0, 1).partitionId(0);

        Decision decision = strategy.onFailure(graph, new TaskFailed(consumer, "not found", gone, false), 3);

        assertThat(resetExecutions(decision)).containsExactly(consumer);
        assertThat(((Restart) decision).counted()).as("the loss was counted when it was found").isFalse();
    }

    @Test
    void rule3AnyOtherFailureIsACountedRestartWhateverWasUsedBeforeForTheRestartStrategyToJudge() {
        Execution task = failed(1, 0, "tm-1");

        Decision decision = strategy.onFailure(graph, new TaskFailed(task, "boom", null, false), 1_000);

        assertThat(resetExecutions(decision)).containsExactly(task);
        assertThat(((Restart) decision).counted()).isTrue();
    }

    @Test
    void rule4AFailedTaskIsResetWithTheProducerOfThePartitionItCouldNotRead() {
        Execution producer = finishedOn(0, 1, "tm-1");
        finishedOn(0, 0, "tm-1");
        Execution consumer = failed(1, 0, "tm-2");

        Decision decision = strategy.onFailure(graph,
                new TaskFailed(consumer, "not found", producer.partitionId(0), false), 0);

        assertThat(resetExecutions(decision)).containsExactly(consumer, producer);
        assertThat(((Restart) decision).counted()).isTrue();
        assertThat(strategy.onFailure(graph, new TaskFailed(consumer, "boom", null, false), 0))
                .satisfies(plain -> assertThat(resetExecutions(plain)).containsExactly(consumer));
    }

    @Test
    void rule5ALostTaskManagerCostsItsActiveTasksAndItsFinishedOutputThatIsStillNeeded() {
        Execution sourceOnLost = finishedOn(0, 0, "tm-lost");
        finishedOn(0, 1, "tm-2");
        Execution reduceOnLost = finishedOn(1, 0, "tm-lost");
        finishedOn(1, 1, "tm-2");
        graph.initializeVertex(2, 1);
        Execution finalOnLost = running(2, 0, "tm-lost");
        finalOnLost.transition(ExecutionState.FAILED, "lost");

        Decision decision = strategy.onFailure(graph, new TaskManagerLost("tm-lost", List.of(finalOnLost)), 0);

        // The final task needs the reduce output; the reduce runs again, so it needs the source output.
        assertThat(resetExecutions(decision)).containsExactly(finalOnLost, reduceOnLost, sourceOnLost);
        assertThat(((Restart) decision).counted()).isTrue();
    }

    @Test
    void rule5FinishedOutputThatEveryConsumerAlreadyReadIsNotReset() {
        finishedOn(0, 0, "tm-lost");
        finishedOn(0, 1, "tm-2");
        finishedOn(1, 0, "tm-2");
        Execution reduce = running(1, 1, "tm-lost");
        reduce.transition(ExecutionState.FAILED, "lost");

        Decision decision = strategy.onFailure(graph, new TaskManagerLost("tm-lost", List.of(reduce)), 0);

        // reduce 1 runs again and reads source 0's output, so that is needed too.
        assertThat(resetExecutions(decision)).containsExactly(reduce, execution(0, 0));

    }

    @Test
    void rule6ATaskManagerThatHeldNothingNeededCostsNothing() {
        finishedOn(0, 0, "tm-lost");
        finishedOn(0, 1, "tm-2");
        finishedOn(1, 0, "tm-2");
        finishedOn(1, 1, "tm-2");

        Decision decision = strategy.onFailure(graph, new TaskManagerLost("tm-lost", List.of()), 3);

        assertThat(decision).isEqualTo(new Restart(List.of(), false));
    }
}

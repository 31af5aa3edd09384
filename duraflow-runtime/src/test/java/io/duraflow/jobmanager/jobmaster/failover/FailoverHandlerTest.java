package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.RestartStrategy;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.FakeCluster;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.TestJobs;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskDeployments;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;

import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.jobmaster.FakeSlotPool;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a failover strategy's decision is carried out: which restarts count, what a reset does to
 * the execution and the event log, and what the job master is told to do next. The strategy is
 * a stub here; {@link BatchFailoverStrategyTest} covers the real one's decisions.
 */
class FailoverHandlerTest {
    private static final long RESTART_DELAY_MS = 1_000;

    private final ManualMailbox scheduler = new ManualMailbox();
    private final ExecutionGraph executions = new ExecutionGraph("job-1", TestJobs.wordCount(4));
    private final RecordingGateways gateways = new RecordingGateways(scheduler);
    private final List<String> loggedResets = new ArrayList<>();
    private final List<Integer> restartsSeenByStrategy = new ArrayList<>();
    private final JobEventLog eventLog = new JobEventLog() {
        @Override
        public void vertexInitialized(int vertex, int parallelism, int[] rangeBounds) {}

        @Override
        public void executionFinished(Execution execution, TaskStateUpdate update) {}

        @Override
        public void executionsReset(List<Execution> reset, String reason) {
            reset.forEach(e -> loggedResets.add(e.vertex() + "/" + e.subtask() + "#" + e.attempt() + ": " + reason));
        }

        @Override
        public void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits) {}

        @Override
        public void splitsReturned(int nodeId, int subtask, int count) {}

        @Override
        public void coordinatorState(int nodeId, byte[] enumeratorState) {}

        @Override
        public void runStarted(String reason) {}
    };

    /** A handler whose strategy decides {@code decision} for every failure. */
    private FailoverHandler handler(FailoverStrategy.Decision decision) {
        return handler(decision, RestartBackoff.start(RestartStrategy.fixedDelay(10, RESTART_DELAY_MS)));
    }

    private FailoverHandler handler(FailoverStrategy.Decision decision, RestartBackoff backoff) {
        TaskManagerActions taskManagers = new TaskManagerActions("job-1", executions.jobGraph(), FakeSlotPool.of(1, 2),
                gateways, new TaskDeployments("session-1", "test.Job", Map.of(), Map.of(), FakeCluster.SETTINGS,
                        executions));
        FailoverStrategy strategy = (graph, failure, restartsSoFar) -> {
            restartsSeenByStrategy.add(restartsSoFar);
            return decision;
        };
        return new FailoverHandler(strategy, executions, taskManagers,
                new CoordinatorHolder(executions, () -> eventLog, gateways), () -> eventLog, scheduler::now, backoff);
    }

    private Execution source(int subtask) {
        return executions.executions(SOURCE)[subtask];
    }

    private FailoverStrategy.Failure failureOf(Execution execution) {
        return new FailoverStrategy.TaskFailed(execution, "boom", null, false);
    }

    @Test
    void aCountedRestartResetsEachExecutionInOrderAfterTheRestartDelayAndUsesOneRestart() {
        FailoverHandler handler = handler(new FailoverStrategy.Restart(List.of(
                new FailoverStrategy.Reset(source(1), "it failed"),
                new FailoverStrategy.Reset(source(0), "its output")), true));
        scheduler.advance(500);

        FailoverHandler.Outcome first = handler.onFailure(failureOf(source(1)));
        FailoverHandler.Outcome second = handler.onFailure(failureOf(source(1)));

        assertThat(first).isEqualTo(new FailoverHandler.ExecutionsReset(2));
        assertThat(second).isEqualTo(new FailoverHandler.ExecutionsReset(2));
        assertThat(restartsSeenByStrategy).containsExactly(0, 1);
        assertThat(handler.restarts()).isEqualTo(2);
        assertThat(source(1).attempt()).isEqualTo(2);
        assertThat(source(1).state()).isEqualTo(ExecutionState.CREATED);
        assertThat(source(1).notBeforeMs()).isEqualTo(500 + RESTART_DELAY_MS);
        assertThat(loggedResets).containsExactly("0/1#1: it failed", "0/0#1: its output", "0/1#2: it failed",
                "0/0#2: its output");
    }

    @Test
    void aRestartThatIsNotCountedResetsWithoutUsingTheBudget() {
        FailoverHandler handler = handler(new FailoverStrategy.Restart(
                List.of(new FailoverStrategy.Reset(source(0), "its input is running again")), false));

        assertThat(handler.onFailure(failureOf(source(0)))).isEqualTo(new FailoverHandler.ExecutionsReset(1));

        assertThat(handler.restarts()).isZero();
        assertThat(source(0).attempt()).isEqualTo(1);
    }

    @Test
    void nothingToResetChangesNothingEvenIfTheStrategyCountedIt() {
        FailoverHandler handler = handler(new FailoverStrategy.Restart(List.of(), true));

        assertThat(handler.onFailure(new FailoverStrategy.TaskManagerLost("tm-1", List.of())))
                .isEqualTo(new FailoverHandler.Unchanged());

        assertThat(handler.restarts()).isZero();
        assertThat(loggedResets).isEmpty();
    }

    @Test
    void whenTheRestartStrategyHasNoRestartLeftTheJobFailsWithTheCauseAndResetsNothing() {
        FailoverHandler handler = handler(new FailoverStrategy.Restart(
                List.of(new FailoverStrategy.Reset(source(0), "it failed")), true),
                RestartBackoff.start(RestartStrategy.fixedDelay(1, RESTART_DELAY_MS)));
        assertThat(handler.onFailure(failureOf(source(0)))).isEqualTo(new FailoverHandler.ExecutionsReset(1));

        assertThat(handler.onFailure(failureOf(source(0))))
                .isEqualTo(new FailoverHandler.FailJob("boom (no restarts left: the restart strategy allowed 1"
                        + " restart)"));
        assertThat(handler.onFailure(new FailoverStrategy.TaskManagerLost("tm-9", List.of(source(0)))))
                .isEqualTo(new FailoverHandler.FailJob("TaskManager tm-9 was lost (no restarts left: the restart"
                        + " strategy allowed 1 restart)"));
        assertThat(source(0).attempt()).isEqualTo(1);
        assertThat(handler.restarts()).isEqualTo(1);
    }

    @Test
    void exponentialDelayGrowsTheWaitOfEachCountedRestart() {
        FailoverHandler handler = handler(new FailoverStrategy.Restart(
                List.of(new FailoverStrategy.Reset(source(0), "it failed")), true),
                RestartBackoff.start(new RestartStrategy(io.duraflow.config.RestartStrategyType.EXPONENTIAL_DELAY, 5,
                        100, 10_000, 3.0, 60_000, 0), () -> 0.5));
        handler.onFailure(failureOf(source(0)));
        assertThat(source(0).notBeforeMs()).isEqualTo(100);
        handler.onFailure(failureOf(source(0)));
        assertThat(source(0).notBeforeMs()).isEqualTo(300);
    }

    @Test
    void aFailedJobResetsNothing() {
        FailoverHandler handler = handler(new FailoverStrategy.FailJob("boom (no restarts left)"));

        assertThat(handler.onFailure(failureOf(source(0))))
                .isEqualTo(new FailoverHandler.FailJob("boom (no restarts left)"));

        assertThat(source(0).attempt()).isZero();
        assertThat(handler.restarts()).isZero();
        assertThat(loggedResets).isEmpty();
    }
}

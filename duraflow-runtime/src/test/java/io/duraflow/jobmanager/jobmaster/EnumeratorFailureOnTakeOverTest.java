package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.recovery.ExecutionKey;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A new leader takes a streaming job over (it does not start it as a submission): a split
 * enumerator failure handled before the take-over is acted on once the kept tasks are adopted or
 * replaced, as a submitted job acts on one as it starts ({@link EnumeratorFailureBeforeStartTest}).
 */
class EnumeratorFailureOnTakeOverTest {
    private static JobGraph graph() {
        JobBuilder job = new JobBuilder("failing-enumerator");
        job.fromSource("numbers", TestSources.source(TestSources.Behaviour.FAIL_FIRST_ASYNC)).parallelism(2)
                .collect("all");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /** Prepared by a new leader; the enumerator's work ends (and fails) before the take-over. */
    private static FakeCluster failedBeforeTakeOver(JobSettings settings) {
        FakeCluster cluster = new FakeCluster(graph(), settings, FakeSlotPool.of(2, 4), "session-2");
        cluster.prepare();
        cluster.scheduler.runDue();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CREATED);
        return cluster;
    }

    /** The tasks an earlier leader's job ran, as their TaskManagers report them to the new one. */
    private static List<ReportedTask> keptTasks() {
        FakeCluster earlier = new FakeCluster(graph(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4));
        earlier.prepare();
        earlier.job.start();
        List<ReportedTask> reports = new ArrayList<>();
        for (Deployment d : earlier.live()) {
            reports.add(new ReportedTask(d.tmId(), new ExecutionKey(d.vertex(), d.subtask()), d.attemptNumber(),
                    ReportedTask.State.RUNNING, d.task().getParallelism(), FakeCluster.SESSION,
                    new ReportedTask.StreamingProgress(d.task().getRunId(), 0, 0, 0, List.of())));
        }
        return reports;
    }

    private static final class RecordingActions implements TakeoverActions {
        final List<ReportedTask> cancelled = new ArrayList<>();
        final List<Execution> adopted = new ArrayList<>();

        @Override
        public CompletableFuture<Void> cancel(List<ReportedTask> tasks) {
            cancelled.addAll(tasks);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> adopt(List<Execution> executions) {
            adopted.addAll(executions);
            return CompletableFuture.completedFuture(null);
        }
    }

    @Test
    void aTakeOverThatRestoresFailsTheJobWithTheCause() {
        FakeCluster cluster = failedBeforeTakeOver(FakeCluster.withRestarts(0));

        cluster.job.startTakingOver(List.of(), new RecordingActions(), tm -> "127.0.0.1:1");
        cluster.scheduler.runDue();

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("a split enumerator failed")
                .contains("topic 'missing' not found");
    }

    @Test
    void aTakeOverThatAdoptsRestartsTheAdoptedTasks() {
        List<ReportedTask> kept = keptTasks();
        FakeCluster cluster = failedBeforeTakeOver(FakeCluster.SETTINGS);
        RecordingActions actions = new RecordingActions();

        cluster.job.startTakingOver(kept, actions, tm -> "127.0.0.1:1");
        cluster.scheduler.runDue();

        assertThat(actions.adopted).hasSize(kept.size());
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.cancels()).as("the adopted tasks are cancelled for the restart")
                .hasSize(kept.size());
    }
}

package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.allRunning;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.completeFirstCheckpoint;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.streamingJob;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.taskCount;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new leader taking over a streaming job: adopting the tasks the TaskManagers kept, or restoring the job from the
 * latest completed checkpoint in the store.
 */
class StreamingTakeoverTest {
    @TempDir
    Path root;

    private FakeCluster started(JobSettings settings, String session) {
        return StreamingJobMasterTest.started(root, settings, session);
    }

    private FakeCluster started() {
        return started(FakeCluster.SETTINGS, FakeCluster.SESSION);
    }

    /**
     * Regression: a new leader adopts the tasks the TaskManagers kept: nothing is deployed, the
     * first checkpoint comes at once with the next id, and an older attempt a TaskManager still
     * reported (of an earlier run, being cancelled) is cancelled, so it holds no slot until the
     * TaskManager's leader-loss timeout.
     */
    @Test
    void aNewLeaderAdoptsTheKeptTasksAndCancelsAnOlderAttemptStillReported() {
        FakeCluster first = started();
        completeFirstCheckpoint(first);
        List<Deployment> kept = first.live();
        String run = kept.get(0).task().getRunId();
        List<io.duraflow.jobmanager.recovery.ReportedTask> reports = new java.util.ArrayList<>();
        for (Deployment d : kept) {
            reports.add(report(d, d.attemptNumber() + 1, run));
        }
        io.duraflow.jobmanager.recovery.ReportedTask stale = report(kept.get(0), kept.get(0).attemptNumber(), "old-run");
        reports.add(stale);

        FakeCluster second = new FakeCluster(streamingJob(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4), "session-2");
        second.enableCheckpoints(root);
        second.prepare();
        List<io.duraflow.jobmanager.recovery.ReportedTask> cancelled = new java.util.ArrayList<>();
        List<Execution> adopted = new java.util.ArrayList<>();
        second.scheduler.advance(1_000);
        long electedAtMs = second.scheduler.now() - 300;
        second.job.recoveredByLeaderElectedAt(electedAtMs);
        second.job.startTakingOver(reports, new TakeoverActions() {
            @Override
            public java.util.concurrent.CompletableFuture<Void> cancel(
                    List<io.duraflow.jobmanager.recovery.ReportedTask> tasks) {
                cancelled.addAll(tasks);
                return java.util.concurrent.CompletableFuture.completedFuture(null);
            }

            @Override
            public java.util.concurrent.CompletableFuture<Void> adopt(List<Execution> executions) {
                adopted.addAll(executions);
                return java.util.concurrent.CompletableFuture.completedFuture(null);
            }
        }, tm -> "127.0.0.1:1");
        second.scheduler.runDue();

        assertThat(adopted).hasSize(taskCount(second.graph));
        assertThat(cancelled).as("the older attempt, nothing adopted").containsExactly(stale);
        assertThat(second.gateways.deployments()).as("adopted tasks are not deployed").isEmpty();
        assertThat(second.job.status().getVerticesList()).flatExtracting(v -> v.getTasksList())
                .allSatisfy(t -> assertThat(t.getRecovery()).isEqualTo("ADOPTED"));
        assertThat(second.gateways.triggers()).as("the first checkpoint at once, ids going on")
                .extracting(t -> t.request().getCheckpointId()).containsOnly(2L);
        assertThat(second.job.status().getLeaderElectedAtMs()).isEqualTo(electedAtMs);
        assertThat(second.job.status().getTakenOverAtMs() - electedAtMs).as("taken over when it decided")
                .isGreaterThanOrEqualTo(300);
    }

    /**
     * Regression: a new leader that cannot adopt every kept task (one subtask was not reported)
     * cancels the kept ones and deploys the restored attempts only once they stopped, so that no
     * subtask runs two attempts at once.
     */
    @Test
    void aTakeOverThatRestoresDeploysOnlyOnceTheCancelledKeptTasksStopped() {
        FakeCluster first = started();
        completeFirstCheckpoint(first);
        List<Deployment> kept = first.live();
        String run = kept.get(0).task().getRunId();
        List<io.duraflow.jobmanager.recovery.ReportedTask> reports = new java.util.ArrayList<>();
        for (Deployment d : kept.subList(1, kept.size())) {
            reports.add(report(d, d.attemptNumber(), run));
        }

        FakeCluster second = new FakeCluster(streamingJob(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4), "session-2");
        second.enableCheckpoints(root);
        second.prepare();
        java.util.concurrent.CompletableFuture<Void> stopped = new java.util.concurrent.CompletableFuture<>();
        List<io.duraflow.jobmanager.recovery.ReportedTask> cancelled = new java.util.ArrayList<>();
        second.job.recoveredByLeaderElectedAt(second.scheduler.now());
        second.job.startTakingOver(reports, new TakeoverActions() {
            @Override
            public java.util.concurrent.CompletableFuture<Void> cancel(
                    List<io.duraflow.jobmanager.recovery.ReportedTask> tasks) {
                cancelled.addAll(tasks);
                return stopped;
            }

            @Override
            public java.util.concurrent.CompletableFuture<Void> adopt(List<Execution> executions) {
                throw new AssertionError("nothing is adopted when a subtask is missing");
            }
        }, tm -> "127.0.0.1:1");
        second.scheduler.advance(5_000);

        assertThat(cancelled).containsExactlyInAnyOrderElementsOf(reports);
        assertThat(second.gateways.deployments()).as("nothing deployed while the kept tasks run").isEmpty();

        second.scheduler.execute(() -> stopped.complete(null));
        second.scheduler.advance(5_000);
        assertThat(second.live()).hasSize(taskCount(second.graph)).allSatisfy(d ->
                assertThat(d.task().getRestore().getCheckpointId()).isEqualTo(1));
    }

    private static io.duraflow.jobmanager.recovery.ReportedTask report(Deployment d, int attempt, String run) {
        return new io.duraflow.jobmanager.recovery.ReportedTask(d.tmId(),
                new io.duraflow.jobmanager.recovery.ExecutionKey(d.vertex(), d.subtask()), attempt,
                io.duraflow.jobmanager.recovery.ReportedTask.State.RUNNING, d.task().getParallelism(),
                FakeCluster.SESSION, new io.duraflow.jobmanager.recovery.ReportedTask.StreamingProgress(run, 0, 1, 1,
                        List.of()));
    }

    @Test
    void aNewLeaderRestoresTheLatestCompletedCheckpointFromTheStore() {
        FakeCluster first = started();
        Map<Deployment, TaskStateSnapshot> acked = completeFirstCheckpoint(first);
        first.job.suspend();

        FakeCluster second = started(FakeCluster.SETTINGS, "session-2");

        List<Deployment> deployed = second.live();
        assertThat(deployed).hasSize(taskCount(second.graph)).allSatisfy(d -> {
            assertThat(d.task().getJmSessionId()).isEqualTo("session-2");
            assertThat(d.task().getRestore().getCheckpointId()).isEqualTo(1);
        });
        for (Deployment d : deployed) {
            TaskStateSnapshot expected = acked.entrySet().stream()
                    .filter(e -> e.getKey().vertex() == d.vertex() && e.getKey().subtask() == d.subtask())
                    .map(Map.Entry::getValue).findFirst().orElseThrow();
            assertThat(d.task().getRestore().getState()).isEqualTo(StateHandleCodec.toProto(expected));
        }
        // The id counter goes on after the restored checkpoint.
        allRunning(second);
        second.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(second.gateways.triggers()).extracting(t -> t.request().getCheckpointId()).containsOnly(2L);
    }
}

package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.jobmaster.scheduling.BlockingAdaptiveScheduling;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingStrategy;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.state.TaskStateSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The seam between what every job master does ({@link JobContext}, {@link TaskEvents}) and what
 * its {@link JobMode} decides, against a mode that records what it is asked and answers as the test
 * says: shared code asks the mode wherever batch and streaming differ, and only then.
 */
class JobContextTest {
    private static final JobSettings SETTINGS = FakeCluster.SETTINGS;

    private final ManualMailbox mainThread = new ManualMailbox();
    private final FakeSlotPool slots = FakeSlotPool.of(1, 4);
    private final RecordingGateways gateways = new RecordingGateways(mainThread);
    private final List<JobMasterState> terminations = new ArrayList<>();
    private RecordingMode mode;
    private final JobContext job = new JobContext(
            new JobContext.Definition("job-1", "test.Job", null, Map.of(), Map.of(), TestJobs.sourceOnly(2, 4), SETTINGS,
                    0),
            new JobContext.Services("session-1", slots, gateways, mainThread, mainThread::now),
            () -> terminations.add(job().state()), new JobMode.Factory() {
                @Override
                public SchedulingStrategy schedulingStrategy(ExecutionGraph executions, JobSettings settings,
                        Supplier<JobEventLog> eventLog) {
                    return new BlockingAdaptiveScheduling(executions, settings, eventLog);
                }

                @Override
                public JobMode create(JobContext context) {
                    // Created last: every shared part is there for the mode to wire itself to.
                    assertThat(context.executions()).isNotNull();
                    assertThat(context.scheduling()).isNotNull();
                    mode = new RecordingMode(context);
                    return mode;
                }
            });
    private final TaskEvents taskEvents = new TaskEvents(job);

    private JobContext job() {
        return job;
    }

    private void start() {
        job.coordinators().startAsync(Runnable::run, Runnable::run, Duration.ofSeconds(30)).join();
        job.guarded("starting the job", job::start);
    }

    private List<Execution> sources() {
        return List.of(job.executions().executions(TestJobs.SOURCE));
    }

    private void report(Execution execution, TaskState state) {
        TaskStateUpdate update = TaskStateUpdate.newBuilder().setTmId(execution.tmId())
                .setAttempt(execution.attemptId()).setState(state).build();
        job.guarded("handling a task state update", () -> taskEvents.onTaskStateUpdate(update));
    }

    @Test
    void theModeTakesOverOnceTheJobRunsAndSchedulesOnlyOutsideARestart() {
        mode.restarting = true;
        start();

        assertThat(mode.calls).containsExactly("start in RUNNING");
        job.scheduleNow();
        assertThat(gateways.deployments()).isEmpty();

        mode.restarting = false;
        job.scheduleNow();
        assertThat(gateways.deployments()).hasSize(2);
    }

    @Test
    void aRunningTaskAndAFailedOneAreTheModesToGoOnFrom() {
        start();
        job.scheduleNow();
        Execution failing = sources().get(0);
        report(failing, TaskState.RUNNING);
        report(failing, TaskState.FAILED);

        assertThat(mode.calls).containsExactly("start in RUNNING", "executionRunning", "taskFailed " + failing);
        assertThat(failing.state()).isEqualTo(ExecutionState.FAILED);
        assertThat(slots.usedTotal()).isEqualTo(1);
    }

    @Test
    void aCancelledTaskIsAFailureUnlessARestartWaitedForIt() {
        start();
        job.scheduleNow();
        Execution first = sources().get(0);
        Execution second = sources().get(1);

        mode.stopsForRestart = true;
        report(first, TaskState.CANCELED);
        mode.stopsForRestart = false;
        report(second, TaskState.CANCELED);

        assertThat(mode.calls).containsExactly("start in RUNNING", "stoppedForRestart", "stoppedForRestart",
                "taskFailed " + second);
    }

    @Test
    void aFailureWhileTheJobIsCancelledEndsTheCancellationWithoutTheMode() {
        start();
        job.scheduleNow();
        job.cancelNow();

        for (Execution execution : sources()) {
            job.taskFailed(execution, "boom", null, false);
        }

        assertThat(job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(terminations).containsExactly(JobMasterState.CANCELED);
        // The end is logged with the mode's restarts.
        assertThat(mode.calls).containsExactly("start in RUNNING", "shutdown", "restarts");
    }

    @Test
    void aFailingHandlerFailsTheJobOnceAndAfterTheEndItsExceptionGoesToTheCaller() {
        start();

        job.guarded("testing", () -> {
            throw new IllegalStateException("broken");
        });

        assertThat(job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(job.failure()).isEqualTo("JobManager failed while testing: broken");
        assertThat(terminations).containsExactly(JobMasterState.FAILED);
        assertThat(mode.calls).containsExactly("start in RUNNING", "shutdown");
        assertThatThrownBy(() -> job.guarded("testing again", () -> {
            throw new IllegalStateException("still broken");
        })).hasMessage("still broken");
        assertThat(terminations).hasSize(1);
    }

    /** Records what it is asked; {@link #restarting} and {@link #stopsForRestart} answer as the test says. */
    private static final class RecordingMode implements JobMode {
        private final JobContext job;
        final List<String> calls = new ArrayList<>();
        boolean restarting;
        boolean stopsForRestart;

        RecordingMode(JobContext job) {
            this.job = job;
        }

        @Override
        public void start() {
            calls.add("start in " + job.state());
        }

        @Override
        public boolean restarting() {
            return restarting;
        }

        @Override
        public int restarts() {
            calls.add("restarts");
            return 0;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> shutdown() {
            calls.add("shutdown");
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }

        @Override
        public CheckpointRestore restoreFrom() {
            return null;
        }

        @Override
        public String runId() {
            return "";
        }

        @Override
        public void executionRunning() {
            calls.add("executionRunning");
        }

        @Override
        public void executionFinished(Execution execution) {
            calls.add("executionFinished " + execution);
        }

        @Override
        public boolean stoppedForRestart() {
            calls.add("stoppedForRestart");
            return stopsForRestart;
        }

        @Override
        public void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
            calls.add("taskFailed " + execution);
        }

        @Override
        public void taskManagerLost(String tmId, List<Execution> lostActive) {
            calls.add("taskManagerLost " + tmId);
        }

        @Override
        public void enumeratorFailed(String cause) {
            calls.add("enumeratorFailed " + cause);
        }

        @Override
        public void inputEnded(AttemptId attempt) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public void enableCheckpoints(JobMaster.CheckpointSetup setup) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory, boolean cancelJob) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public CheckpointCoordinator checkpointCoordinator() {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public List<CheckpointStats> checkpointHistory() {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
                CheckpointMetrics metrics) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public int restore(RecoveryPlan plan) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public List<Execution> adopt(AdoptionPlan plan, Function<String, String> tmAddress) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public void startTakingOver(List<ReportedTask> reports, TakeoverActions actions,
                Function<String, String> tmAddress) {
            throw new UnsupportedOperationException("not shared code's to call");
        }

        @Override
        public int tasksToRunAgain(JobStatus status) {
            throw new UnsupportedOperationException("not shared code's to call");
        }
    }
}

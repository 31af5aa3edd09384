package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Faults inside the job master's handlers, failures a restart cannot fix, parallelism above the
 * key groups, and the job-wide limit on collected bytes: each ends the job FAILED with its cause,
 * never a job left RUNNING with nobody driving it.
 */
class JobMasterFaultsTest {

    /** Delegates to the recording gateways, but throws where a test says so. */
    private static final class FaultyGateways implements TaskManagerGateways {
        private final TaskManagerGateways delegate;
        volatile boolean deployThrows;
        volatile boolean releaseThrows;

        FaultyGateways(TaskManagerGateways delegate) {
            this.delegate = delegate;
        }

        @Override
        public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
            if (deployThrows) {
                throw new IllegalStateException("gateway to " + tmId + " is broken");
            }
            delegate.deploy(tmId, deployment, onFailure);
        }

        @Override
        public void cancel(String tmId, AttemptId attempt) {
            delegate.cancel(tmId, attempt);
        }

        @Override
        public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
            delegate.sendOperatorEvent(tmId, attempt, nodeId, sequence, event);
        }

        @Override
        public void triggerCheckpoint(String tmId, io.duraflow.rpc.proto.TriggerCheckpointRequests triggers) {
            delegate.triggerCheckpoint(tmId, triggers);
        }

        @Override
        public void notifyCheckpoint(String tmId, io.duraflow.rpc.proto.CheckpointNotifications notifications) {
            delegate.notifyCheckpoint(tmId, notifications);
        }

        @Override
        public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
            if (releaseThrows && !partitionIds.isEmpty()) {
                throw new IllegalStateException("cannot release on " + tmId);
            }
            delegate.releasePartitions(tmId, jobId, partitionIds);
        }
    }

    private FaultyGateways faulty;

    private FakeCluster faultyCluster(JobGraph graph, JobSettings settings) {
        FakeCluster cluster = new FakeCluster(graph, settings, FakeSlotPool.of(2, 2), FakeCluster.SESSION,
                recording -> faulty = new FaultyGateways(recording));
        cluster.start();
        return cluster;
    }

    private static void assertFailed(FakeCluster cluster, String causePart) {
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains(causePart);
        assertThat(cluster.slots.usedTotal()).as("every slot freed").isZero();
    }

    // ------------------------------------------------------------------ item: no swallowed failures

    @Test
    void aGatewayThatThrowsOnDeployFailsTheJobInsteadOfLeavingItRunning() {
        FakeCluster cluster = faultyCluster(TestJobs.wordCount(4), FakeCluster.SETTINGS);
        faulty.deployThrows = true;

        cluster.runLive(SOURCE);

        assertFailed(cluster, "JobManager failed while handling a task state update: gateway to ");
        assertThat(cluster.job.status().getFailure()).contains("is broken");
    }

    @Test
    void aFailureWhileHandlingTheLossOfATaskManagerFailsTheJob() {
        FakeCluster cluster = faultyCluster(TestJobs.wordCount(4), FakeCluster.SETTINGS);
        cluster.runLive(SOURCE);
        Deployment reduce = cluster.current(REDUCE, 0);
        cluster.running(reduce);
        faulty.releaseThrows = true;

        String lost = cluster.current(SOURCE, 0).tmId();
        cluster.slots.removeTaskManager(lost);
        cluster.job.onTaskManagerLost(lost);

        assertFailed(cluster, "JobManager failed while handling the loss of a TaskManager: cannot release on");
    }

    @Test
    void aCoordinatorThatThrowsOnAnEventFailsTheJobWithItsCause() {
        FakeCluster cluster = FakeCluster.started(TestSources.sourceOnly(TestSources.Behaviour.THROW_ON_REQUEST),
                FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        cluster.running(s0);

        assertThatThrownBy(() -> cluster.requestSplit(s0)).as("no answer, the job failed")
                .isInstanceOf(AssertionError.class);

        assertFailed(cluster, "enumerator broke on a request of subtask 0");
    }

    // ------------------------------------------------------------------ item: deterministic failures

    @Test
    void aNonRetriableTaskFailureFailsTheJobAtOnceWithRestartsLeft() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        cluster.running(s0);

        cluster.send(FakeCluster.update(s0, TaskState.FAILED).setFailure("NoClassDefFoundError: com/acme/Udf")
                .setNonRetriable(true));

        assertFailed(cluster, "NoClassDefFoundError: com/acme/Udf (not retried");
        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.deploymentsOf(SOURCE, 0)).as("never deployed again").hasSize(1);
    }

    @Test
    void aNonRetriableTaskFailureFailsAStreamingJobAtOnceToo() {
        FakeCluster cluster = new FakeCluster(TestSources.threeStages(TestSources.Behaviour.UNBOUNDED),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 8));
        cluster.start();
        assertThat(cluster.graph.mode()).isEqualTo(io.duraflow.config.RuntimeMode.STREAMING);
        Deployment s0 = cluster.current(SOURCE, 0);
        cluster.running(s0);

        cluster.send(FakeCluster.update(s0, TaskState.FAILED)
                .setFailure("NonRetriableException: the collected result is larger than collect.max-bytes")
                .setNonRetriable(true));

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("collect.max-bytes (not retried");
        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.deploymentsOf(SOURCE, 0)).as("never deployed again").hasSize(1);
    }

    @Test
    void aRetriableTaskFailureStillRunsAgain() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        cluster.running(s0);

        cluster.send(FakeCluster.update(s0, TaskState.FAILED).setFailure("disk hiccup"));

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(cluster.job.restarts()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ item: parallelism above the key groups

    /** 8 key groups as in {@link FakeCluster#SETTINGS}, but only 1. */
    private static JobSettings oneKeyGroup() {
        JobSettings s = FakeCluster.SETTINGS;
        return new JobSettings(s.defaultParallelism(), 1, s.minParallelism(), s.maxParallelism(), s.bytesPerTask(),
                s.maxRestarts(), s.restartDelayMs(), s.collectMaxBytes());
    }

    @Test
    void aFixedParallelismAboveTheKeyGroupsIsRefusedWhenTheJobIsPrepared() {
        FakeCluster cluster = new FakeCluster(TestJobs.threeStages(), oneKeyGroup(), FakeSlotPool.of(2, 2));

        CompletableFuture<Void> prepared = cluster.job.prepareAsync(Runnable::run, Runnable::run,
                Duration.ofSeconds(30));

        assertThat(prepared).isCompletedExceptionally();
        assertThat(prepared.handle((r, e) -> e).join()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has parallelism 2 but its input has only 1 key groups")
                .hasMessageContaining("raise execution.batch.max-key-groups to at least 2");
        assertThat(cluster.gateways.deployments()).isEmpty();
    }

    @Test
    void everyStateChangingEntryRefusesToRunOffTheMainThread() throws Exception {
        FakeCluster cluster = new FakeCluster(TestSources.threeStages(TestSources.Behaviour.PUSH),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 2));
        java.util.List<Runnable> entries = java.util.List.of(cluster.job::start, cluster.job::schedule,
                cluster.job::cancel, cluster.job::suspend, () -> cluster.job.onTaskManagerLost("tm"),
                () -> cluster.job.failBeforeStart("x"), cluster.job::forceCancelled);
        for (Runnable entry : entries) {
            java.util.concurrent.CompletableFuture<Void> call = java.util.concurrent.CompletableFuture.runAsync(entry);
            assertThat(call.handle((r, e) -> e).get()).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("must run on the test's main thread");
        }
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CREATED);
    }

    @Test
    void aJobWithAnUnboundedSourceRunsInStreamingModeWithAllItsTasksDeployedAtOnce() {
        FakeCluster cluster = new FakeCluster(TestSources.threeStages(TestSources.Behaviour.UNBOUNDED),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 8));

        CompletableFuture<Void> prepared = cluster.job.prepareAsync(Runnable::run, Runnable::run,
                Duration.ofSeconds(30));
        assertThat(prepared).isCompleted();
        cluster.job.start();

        assertThat(cluster.graph.mode()).isEqualTo(io.duraflow.config.RuntimeMode.STREAMING);
        assertThat(cluster.gateways.deployments()).hasSize(cluster.graph.vertices().stream()
                .mapToInt(io.duraflow.plan.JobVertex::parallelism).sum());
    }

    @Test
    void ifSuchAVertexIsEverScheduledTheJobFailsInsteadOfHanging() {
        FakeCluster cluster = new FakeCluster(TestJobs.threeStages(), oneKeyGroup(), FakeSlotPool.of(2, 2));
        cluster.job.start(); // as if the check at submission had been skipped

        cluster.live(SOURCE).forEach(d -> {
            cluster.running(d);
            cluster.finish(d);
        });

        assertFailed(cluster, "raise execution.batch.max-key-groups to at least 2");
    }

    // ------------------------------------------------------------------ item: collect.max-bytes per job

    @Test
    void collectedBytesAreLimitedPerJobNotPerSubtask() {
        JobSettings limit = FakeCluster.withCollectMaxBytes(15);
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), limit, FakeSlotPool.of(2, 2));
        cluster.runLive(SOURCE);
        List<Deployment> reduces = cluster.live(REDUCE);
        assertThat(reduces).hasSize(2);

        finishCollecting(cluster, reduces.get(0), 10);
        assertThat(cluster.job.state()).as("10 of 15 bytes").isEqualTo(JobMasterState.RUNNING);
        finishCollecting(cluster, reduces.get(1), 10);

        assertFailed(cluster, "the job collected 20 bytes, more than collect.max-bytes (15 bytes) allows;"
                + " raise collect.max-bytes");
    }

    @Test
    void collectedBytesWithinTheLimitFinishTheJob() {
        JobSettings limit = FakeCluster.withCollectMaxBytes(20);
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), limit, FakeSlotPool.of(2, 2));
        cluster.runLive(SOURCE);
        for (Deployment reduce : cluster.live(REDUCE)) {
            finishCollecting(cluster, reduce, 10);
        }

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.job.collected()).hasSize(2);
    }

    private static void finishCollecting(FakeCluster cluster, Deployment d, int bytes) {
        cluster.running(d);
        cluster.send(FakeCluster.update(d, TaskState.FINISHED).addCollected(CollectedResult.newBuilder()
                .setName("sums").setSubtask(d.subtask()).setRecords(1).setData(ByteString.copyFrom(new byte[bytes]))));
    }
}

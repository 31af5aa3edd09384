package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.Types;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Notification;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Trigger;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JobManager side of a streaming job: pipelined deployment and checkpoints through the
 * coordinator (trigger, acknowledgements, declines, notifications). Its helpers serve the tests
 * of the rest: global restarts ({@link StreamingRestartsTest}), a new leader taking over
 * ({@link StreamingTakeoverTest}), final checkpoints ({@link FinalCheckpointsTest}) and a watching
 * source's periodic listing ({@link WatchingSourceEnumeratorTest}).
 */
public class StreamingJobMasterTest {
    static final int SOURCE = 0;
    static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    @TempDir
    Path root;

    /** source (2) -> keyed reduce (3) -> collect, in streaming mode; the source's enumerators record calls. */
    public static JobGraph streamingJob() {
        JobBuilder job = new JobBuilder("streaming");
        job.fromSource("numbers", new RecordingSequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(3)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /** {@link #streamingJob()} on 2 TaskManagers of 4 slots, checkpointing under {@code root}, started. */
    static FakeCluster started(Path root, JobSettings settings, String session) {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(streamingJob(), settings, FakeSlotPool.of(2, 4), session);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        return cluster;
    }

    private FakeCluster started(JobSettings settings, String session) {
        return started(root, settings, session);
    }

    private FakeCluster started() {
        return started(FakeCluster.SETTINGS, FakeCluster.SESSION);
    }

    static int taskCount(JobGraph graph) {
        return graph.vertices().stream().mapToInt(JobVertex::parallelism).sum();
    }

    static void allRunning(FakeCluster cluster) {
        cluster.live().forEach(cluster::running);
        cluster.scheduler.runDue();
    }

    /** The state a task acknowledges: one SPLIT list element per operator of its chain, naming task and checkpoint. */
    static TaskStateSnapshot stateOf(JobGraph graph, Deployment d, long checkpointId) {
        Map<String, OperatorSubtaskState> operators = new HashMap<>();
        JobVertex vertex = graph.vertex(d.vertex());
        byte[] bytes = ("v" + d.vertex() + "/" + d.subtask() + "#" + d.attemptNumber() + "@" + checkpointId)
                .getBytes(StandardCharsets.UTF_8);
        OperatorStateHandle handle = new OperatorStateHandle(Map.of("state", new OperatorStateHandle.StateList(
                OperatorStateHandle.Distribution.SPLIT, new long[] {0})), new InlineStateHandle(bytes));
        operators.put(graph.uid(vertex.head()), new OperatorSubtaskState(List.of(), List.of(handle)));
        return new TaskStateSnapshot(operators);
    }

    static CheckpointTask task(Deployment d) {
        return new CheckpointTask(d.vertex(), d.subtask(), d.attemptNumber());
    }

    /** Every live task acknowledges the checkpoint; returns what each acknowledged, by deployment. */
    static Map<Deployment, TaskStateSnapshot> ackAll(FakeCluster cluster, long checkpointId) {
        Map<Deployment, TaskStateSnapshot> acked = new HashMap<>();
        for (Deployment d : cluster.live()) {
            TaskStateSnapshot state = stateOf(cluster.graph, d, checkpointId);
            acked.put(d, state);
            cluster.job.acknowledgeCheckpoint(task(d), checkpointId, state, CheckpointMetrics.NONE);
        }
        cluster.scheduler.runDue();
        return acked;
    }

    /** Checkpoint 1: triggered one interval after all run, acknowledged by all, completed. */
    static Map<Deployment, TaskStateSnapshot> completeFirstCheckpoint(FakeCluster cluster) {
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).extracting(t -> t.request().getCheckpointId()).containsOnly(1L);
        Map<Deployment, TaskStateSnapshot> acked = ackAll(cluster, 1);
        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::status)
                .containsExactly(CheckpointStats.Status.COMPLETED);
        return acked;
    }

    @Test
    void allTasksAreDeployedAtOnceWithOneSubpartitionPerConsumerSubtaskAndNoRestore() {
        FakeCluster cluster = started();

        assertThat(cluster.gateways.deployments()).hasSize(taskCount(cluster.graph));
        for (Deployment d : cluster.gateways.deployments()) {
            assertThat(d.task().hasRestore()).isFalse();
            for (OutputSpec output : d.task().getOutputsList()) {
                int consumer = cluster.graph.edge(output.getEdgeId()).consumer();
                assertThat(output.getSubpartitions()).isEqualTo(cluster.graph.vertex(consumer).parallelism());
            }
        }
        assertThat(cluster.current(SOURCE, 0).task().getOutputs(0).getSubpartitions()).isEqualTo(3);
    }

    @Test
    void withFewerFreeSlotsThanTheJobNeedsNothingIsDeployedUntilEnoughAreFree() {
        RecordingSequenceSource.clear();
        FakeSlotPool slots = FakeSlotPool.of(1, 2);
        FakeCluster cluster = new FakeCluster(streamingJob(), FakeCluster.SETTINGS, slots, FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        assertThat(cluster.gateways.deployments()).as("5 tasks sharing 3 slots, 2 free: all or nothing").isEmpty();

        slots.addTaskManager("tm-2", 1);
        cluster.job.schedule();

        assertThat(cluster.gateways.deployments()).hasSize(taskCount(cluster.graph));
    }

    @Test
    void anEnumeratorThatCannotSnapshotDeclinesSoftOrHardBeforeAnySnapshotOrTrigger() {
        FakeCluster cluster = started();
        RecordingSequenceSource.availability = id -> id == 1
                ? io.duraflow.api.checkpoint.SnapshotAvailability.softFailure("reading a table chunk")
                : io.duraflow.api.checkpoint.SnapshotAvailability.hardFailure("lost its binlog position");
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);

        assertThat(cluster.job.checkpointHistory()).first().satisfies(stats -> {
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.FAILED);
            assertThat(stats.failure().reason()).isEqualTo(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT);
            assertThat(stats.failure().message()).contains("reading a table chunk");
        });
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.job.checkpointHistory()).last().satisfies(stats ->
                assertThat(stats.failure().reason()).isEqualTo(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD));
        assertThat(RecordingSequenceSource.SNAPSHOTS).as("no enumerator snapshot taken").isEmpty();
        assertThat(cluster.gateways.triggers()).as("no task triggered").isEmpty();
    }

    /**
     * A split the enumerator hands out after its snapshot but before the trigger is sent (the
     * trigger waits for the main thread) must reach the reader after the reader's own snapshot,
     * whatever order the two RPCs arrive in: the trigger carries the event sequence number
     * reserved at the snapshot, and the split's event a later one. Otherwise the split would be in
     * the enumerator's state (unassigned) and the reader's, and be read twice after a restore.
     */
    @Test
    void aSplitAssignedBetweenTheEnumeratorSnapshotAndTheTriggerIsOrderedAfterTheTrigger() {
        FakeCluster cluster = started();
        allRunning(cluster);
        Deployment source = cluster.current(SOURCE, 0);
        // Between the enumerators' snapshot and the trigger, which the coordinator sends from a later main-thread action.
        assertThat(cluster.scheduler.advanceUntil(FakeCluster.CHECKPOINT_INTERVAL_MS,
                () -> !RecordingSequenceSource.SNAPSHOTS.isEmpty())).as("the enumerators snapshotted").isTrue();
        assertThat(cluster.gateways.triggers()).as("not triggered yet").isEmpty();
        requestSplit(cluster, source);
        cluster.scheduler.runDue();

        long triggerSequence = cluster.gateways.triggers().stream()
                .filter(t -> t.request().getAttempt().equals(source.attempt())).findFirst().orElseThrow()
                .request().getEventSequence();
        RecordingGateways.Event split = cluster.gateways.eventsTo(source.attempt()).stream()
                .filter(e -> e.event().hasAddSplits()).findFirst().orElseThrow();
        assertThat(triggerSequence).as("the trigger has its place among the events").isPositive();
        assertThat(split.sequence()).as("the split assigned after the snapshot comes after the trigger")
                .isGreaterThan(triggerSequence);
        assertThat(cluster.gateways.eventsTo(source.attempt())).as("the sequence numbers have no gap")
                .extracting(RecordingGateways.Event::sequence).doesNotContain(triggerSequence);
    }

    /**
     * A checkpoint aborted after its enumerators snapshotted but before its trigger was sent
     * leaves a reserved sequence number unsent: a SequenceSkipped fills it, or every later event
     * to that reader would wait for it forever.
     */
    @Test
    void aCheckpointAbortedBeforeItsTriggerWasSentFillsTheReservedSequenceNumbers() {
        FakeCluster cluster = started();
        allRunning(cluster);
        Deployment keyed = cluster.live().stream().filter(d -> d.vertex() != SOURCE).findFirst().orElseThrow();
        assertThat(cluster.scheduler.advanceUntil(FakeCluster.CHECKPOINT_INTERVAL_MS,
                () -> !RecordingSequenceSource.SNAPSHOTS.isEmpty())).as("the enumerators snapshotted").isTrue();
        cluster.job.declineCheckpoint(task(keyed), 1,
                new CheckpointFailure(1, CheckpointFailureReason.DECLINED, "disk full", null));
        cluster.scheduler.runDue();

        assertThat(cluster.gateways.triggers()).as("aborted before any trigger went out").isEmpty();
        for (Deployment source : cluster.live()) {
            if (source.vertex() != SOURCE) {
                continue;
            }
            assertThat(cluster.gateways.eventsTo(source.attempt()))
                    .filteredOn(e -> e.event().hasSequenceSkipped())
                    .singleElement().satisfies(e -> {
                        assertThat(e.sequence()).isEqualTo(1);
                        assertThat(e.event().getSequenceSkipped().getCheckpointId()).isEqualTo(1);
                    });
        }
        requestSplit(cluster, cluster.current(SOURCE, 0));
        assertThat(cluster.gateways.eventsTo(cluster.current(SOURCE, 0).attempt()))
                .filteredOn(e -> e.event().hasAddSplits()).singleElement()
                .satisfies(e -> assertThat(e.sequence()).as("the next event follows the skipped one").isEqualTo(2));
    }

    @Test
    void theTriggerGoesToTheSourceTasksOnlyOnceEveryTaskRuns() {
        FakeCluster cluster = started();
        cluster.scheduler.advance(5 * FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).as("not every task runs yet").isEmpty();

        List<Deployment> live = cluster.live();
        live.subList(0, live.size() - 1).forEach(cluster::running);
        cluster.scheduler.advance(5 * FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).as("one task still deploying").isEmpty();

        cluster.running(live.get(live.size() - 1));
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS - 1);
        assertThat(cluster.gateways.triggers()).as("one interval after all run").isEmpty();
        cluster.scheduler.advance(1);

        assertThat(cluster.gateways.triggers()).extracting(Trigger::tmId, t -> t.request().getAttempt().getVertex(),
                t -> t.request().getAttempt().getSubtask())
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(cluster.current(SOURCE, 0).tmId(), SOURCE, 0),
                        org.assertj.core.groups.Tuple.tuple(cluster.current(SOURCE, 1).tmId(), SOURCE, 1));
        assertThat(cluster.gateways.triggers()).allSatisfy(t -> {
            assertThat(t.request().getCheckpointId()).isEqualTo(1);
            assertThat(t.session()).isEqualTo(FakeCluster.SESSION);
        });
        assertThat(cluster.gateways.triggerCalls()).as("one call per TaskManager")
                .isEqualTo((int) cluster.gateways.triggers().stream().map(Trigger::tmId).distinct().count());
    }

    @Test
    void acknowledgementsOfAllTasksCompleteTheCheckpointAndEveryTaskIsNotified() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        List<Deployment> live = cluster.live();
        for (Deployment d : live.subList(0, live.size() - 1)) {
            cluster.job.acknowledgeCheckpoint(task(d), 1, stateOf(cluster.graph, d, 1), CheckpointMetrics.NONE);
        }
        cluster.scheduler.runDue();
        assertThat(cluster.gateways.notifications()).as("one acknowledgement missing").isEmpty();

        Deployment last = live.get(live.size() - 1);
        cluster.job.acknowledgeCheckpoint(task(last), 1, stateOf(cluster.graph, last, 1), CheckpointMetrics.NONE);
        cluster.scheduler.runDue();

        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::checkpointId, CheckpointStats::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, CheckpointStats.Status.COMPLETED));
        assertThat(RecordingSequenceSource.SNAPSHOTS).as("the enumerator snapshots first").containsExactly(1L);
        assertThat(RecordingSequenceSource.COMPLETED).as("and hears of the completion").containsExactly(1L);
        assertThat(cluster.gateways.notifications()).hasSize(live.size())
                .allSatisfy(n -> {
                    assertThat(n.notification().getCompleted()).isTrue();
                    assertThat(n.notification().getCheckpointId()).isEqualTo(1);
                })
                .extracting(n -> n.notification().getAttempt())
                .containsExactlyInAnyOrderElementsOf(live.stream().map(Deployment::attempt).toList());
        assertThat(cluster.gateways.notificationCalls()).as("one call per TaskManager, the sinks' tasks first")
                .hasSize((int) live.stream().map(Deployment::tmId).distinct().count())
                .allSatisfy(call -> {
                    assertThat(call.getJmSessionId()).isEqualTo(FakeCluster.SESSION);
                    assertThat(call.getNotificationsList()).extracting(n -> n.getAttempt().getVertex())
                            .isSortedAccordingTo(java.util.Comparator.reverseOrder());
                });
    }

    @Test
    void aDeclineAbortsTheCheckpointAndEveryTaskIsTold() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        Deployment source = cluster.current(SOURCE, 0);

        cluster.job.declineCheckpoint(task(source), 1, new CheckpointFailure(1, CheckpointFailureReason.DECLINED,
                "disk full", null));
        cluster.scheduler.runDue();

        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::status)
                .containsExactly(CheckpointStats.Status.FAILED);
        assertThat(cluster.gateways.notifications()).isNotEmpty().extracting(Notification::notification)
                .allSatisfy(n -> assertThat(n.getCompleted()).isFalse());
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(cluster.gateways.cancels()).as("one failed checkpoint is tolerated").isEmpty();

        // The next one fails too: more than tolerated, so the job restarts.
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        cluster.job.declineCheckpoint(task(source), 2, new CheckpointFailure(2, CheckpointFailureReason.DECLINED,
                "disk still full", null));
        cluster.scheduler.runDue();
        assertThat(cluster.gateways.cancels()).hasSize(taskCount(cluster.graph));
        assertThat(cluster.job.restarts()).isEqualTo(1);
    }

    /**
     * Found by FileMergingHdfsIT: a job cancelled while its last checkpoint was finalizing had its
     * result stored, so its cleanup listed the retained checkpoints and deleted the rest, while that
     * checkpoint's metadata and pointer were still being written: the cleanup deleted the files the
     * new retained checkpoint used, and its completion the older one. The result waits for it.
     */
    @Test
    void aJobCancelledWhileACheckpointFinalizesEndsOnlyOnceThatCheckpointIsDurable() {
        RecordingSequenceSource.clear();
        java.util.ArrayDeque<Runnable> io = new java.util.ArrayDeque<>();
        FakeCluster cluster = new FakeCluster(streamingJob(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4),
                FakeCluster.SESSION);
        cluster.enableCheckpoints(root, io::add);
        cluster.startStreaming();
        runAll(io, cluster);
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        runAll(io, cluster);
        ackAll(cluster, 1);
        assertThat(io).as("checkpoint 1's metadata and pointer, queued").isNotEmpty();

        cluster.job.cancel();
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.runDue();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(cluster.terminations).as("no result while checkpoint 1 is finalizing").isEmpty();

        runAll(io, cluster);

        assertThat(cluster.terminations).containsExactly(JobMasterState.CANCELED);
        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::checkpointId, CheckpointStats::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, CheckpointStats.Status.COMPLETED));
    }

    private static void runAll(java.util.ArrayDeque<Runnable> io, FakeCluster cluster) {
        while (!io.isEmpty() || cluster.scheduler.runDue() > 0) {
            while (!io.isEmpty()) {
                io.poll().run();
            }
        }
    }

    static List<Deployment> triggered(FakeCluster cluster, long checkpointId) {
        return cluster.gateways.triggers().stream().filter(t -> t.request().getCheckpointId() == checkpointId)
                .map(t -> cluster.live().stream().filter(d -> d.attempt().equals(t.request().getAttempt()))
                        .findFirst().orElseThrow())
                .toList();
    }

    static void requestSplit(FakeCluster cluster, Deployment source) {
        cluster.job.onOperatorEvent(source.attempt(), cluster.graph.vertex(SOURCE).head().id(),
                OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance()).build());
    }
}

package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.TextFileSource;
import io.duraflow.api.types.Types;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.StateHandleCodec;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The JobManager side of a streaming job: pipelined deployment, checkpoints through the
 * coordinator (trigger, acknowledgements, declines, notifications), and the global restart from
 * the latest completed checkpoint after a task failure or a lost TaskManager, also under a new
 * leader.
 */
public class StreamingJobMasterTest {
    private static final int SOURCE = 0;
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

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

    private FakeCluster started(JobSettings settings, String session) {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(streamingJob(), settings, FakeSlotPool.of(2, 4), session);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        return cluster;
    }

    private FakeCluster started() {
        return started(FakeCluster.SETTINGS, FakeCluster.SESSION);
    }

    private static int taskCount(JobGraph graph) {
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
    private static Map<Deployment, TaskStateSnapshot> completeFirstCheckpoint(FakeCluster cluster) {
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).extracting(t -> t.request().getCheckpointId()).containsOnly(1L);
        Map<Deployment, TaskStateSnapshot> acked = ackAll(cluster, 1);
        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::status)
                .containsExactly(CheckpointStats.Status.COMPLETED);
        return acked;
    }

    /** Each redeployed task carries exactly what its subtask acknowledged for the checkpoint. */
    private static void assertRestoresFrom(FakeCluster cluster, Map<Deployment, TaskStateSnapshot> acked,
            long checkpointId, int attempt) {
        List<Deployment> redeployed = cluster.live();
        assertThat(redeployed).hasSize(taskCount(cluster.graph));
        for (Deployment d : redeployed) {
            assertThat(d.attemptNumber()).isEqualTo(attempt);
            assertThat(d.task().hasRestore()).as("restore of %s", d.attempt()).isTrue();
            assertThat(d.task().getRestore().getCheckpointId()).isEqualTo(checkpointId);
            TaskStateSnapshot expected = acked.entrySet().stream()
                    .filter(e -> e.getKey().vertex() == d.vertex() && e.getKey().subtask() == d.subtask())
                    .map(Map.Entry::getValue).findFirst().orElseThrow();
            TaskStateSnapshot restored = StateHandleCodec.fromProto(d.task().getRestore().getState());
            assertThat(StateHandleCodec.toProto(restored)).isEqualTo(StateHandleCodec.toProto(expected));
        }
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
            assertThat(t.request().getJmSessionId()).isEqualTo(FakeCluster.SESSION);
        });
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

    /** Found by StreamingCheckpointsIT: the end of a restarted streaming job was logged with "0 restarts". */
    @Test
    void theEndOfARestartedJobIsLoggedWithItsRestarts() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(JobMaster.class);
        Level level = logger.getLevel();
        log.start();
        logger.addAppender(log);
        logger.setLevel(Level.INFO);
        try {
            FakeCluster cluster = started();
            completeFirstCheckpoint(cluster);
            cluster.fail(cluster.current(SOURCE, 1), "boom");
            cluster.live().forEach(cluster::canceled);
            cluster.scheduler.advance(DELAY);
            assertThat(cluster.job.restarts()).isEqualTo(1);

            cluster.job.cancel();
            cluster.live().forEach(cluster::canceled);

            assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
            assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(line -> line.matches("Job \\S+ CANCELED after \\d+ ms, 1 restarts"));
        } finally {
            logger.detachAppender(log);
            logger.setLevel(level);
        }
    }

    @Test
    void aTaskFailureCancelsAllWaitsThenRedeploysAllFromTheLatestCheckpoint() {
        FakeCluster cluster = started();
        Map<Deployment, TaskStateSnapshot> acked = completeFirstCheckpoint(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.job.checkpointCoordinator().pendingCount()).as("checkpoint 2 pending").isEqualTo(1);
        int deployed = cluster.gateways.deployments().size();
        Deployment failing = cluster.current(SOURCE, 1);

        cluster.fail(failing, "boom");

        assertThat(cluster.job.checkpointCoordinator().pendingCount()).as("pending checkpoint aborted").isZero();
        List<Deployment> others = cluster.live();
        assertThat(others).hasSize(taskCount(cluster.graph) - 1)
                .allSatisfy(d -> assertThat(cluster.execution(d.vertex(), d.subtask()).state())
                        .isEqualTo(ExecutionState.CANCELING));
        assertThat(cluster.gateways.cancels()).extracting(c -> c.attempt())
                .containsExactlyInAnyOrderElementsOf(others.stream().map(Deployment::attempt).toList());

        // Nothing goes out while a task of the old run is still active, not even after the delay.
        others.subList(0, others.size() - 1).forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY * 3);
        assertThat(cluster.gateways.deployments()).hasSize(deployed);

        cluster.canceled(others.get(others.size() - 1));
        cluster.scheduler.advance(DELAY - 1);
        assertThat(cluster.gateways.deployments()).as("before the restart delay").hasSize(deployed);
        cluster.scheduler.advance(1);

        assertRestoresFrom(cluster, acked, 1, 1);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(RecordingSequenceSource.SNAPSHOTS).as("checkpoints 1 and 2").containsExactly(1L, 2L);
        assertThat(RecordingSequenceSource.RESTORED).as("the enumerator goes back to its state in checkpoint 1")
                .singleElement().isEqualTo(RecordingSequenceSource.SNAPSHOT_STATES.get(0));

        // The restarted job checkpoints again once all run, with the new attempts.
        allRunning(cluster);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).last()
                .satisfies(t -> assertThat(t.request().getAttempt().getAttempt()).isEqualTo(1));
    }

    @Test
    void aLostTaskManagerRestartsTheWholeJobFromTheLatestCheckpoint() {
        FakeCluster cluster = started();
        Map<Deployment, TaskStateSnapshot> acked = completeFirstCheckpoint(cluster);
        String lost = cluster.current(SOURCE, 0).tmId();
        List<Deployment> elsewhere = cluster.live().stream().filter(d -> !d.tmId().equals(lost)).toList();

        cluster.slots.removeTaskManager(lost);
        cluster.job.onTaskManagerLost(lost);
        cluster.slots.addTaskManager("tm-3", 4);

        assertThat(cluster.gateways.cancels()).extracting(c -> c.attempt())
                .containsExactlyInAnyOrderElementsOf(elsewhere.stream().map(Deployment::attempt).toList());
        elsewhere.forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY);

        assertRestoresFrom(cluster, acked, 1, 1);
        assertThat(cluster.live()).noneMatch(d -> d.tmId().equals(lost));
    }

    @Test
    void aConsumerFailingBecauseItsProducersTaskManagerDiedRedeploysTheRestartDelayAfterThatTaskManagerIsLost() {
        FakeCluster cluster = started();
        Map<Deployment, TaskStateSnapshot> acked = completeFirstCheckpoint(cluster);
        String dead = cluster.current(SOURCE, 0).tmId();
        Deployment consumer = cluster.live().stream().filter(d -> d.vertex() != SOURCE && !d.tmId().equals(dead))
                .findFirst().orElseThrow();
        int deployed = cluster.gateways.deployments().size();

        // A consumer on the other TaskManager fails within milliseconds: its stream from the dead one broke.
        cluster.fail(consumer, "lost the stream of a partition from task manager " + dead);
        cluster.live().stream().filter(d -> !d.tmId().equals(dead)).forEach(cluster::canceled);
        // The dead TaskManager's tasks never confirm their cancellation: nothing goes out until it is lost.
        cluster.scheduler.advance(DELAY * 3);
        assertThat(cluster.gateways.deployments()).hasSize(deployed);

        // Lost (its suspicion confirmed): the restart delay runs from now, and nothing goes to it.
        long lostAt = cluster.scheduler.now();
        cluster.slots.removeTaskManager(dead);
        cluster.job.onTaskManagerLost(dead);
        cluster.slots.addTaskManager("tm-3", 4);
        cluster.scheduler.advance(DELAY - 1);
        assertThat(cluster.gateways.deployments()).as("before the restart delay").hasSize(deployed);
        cluster.scheduler.advance(1);

        assertThat(cluster.scheduler.now()).isEqualTo(lostAt + DELAY);
        assertRestoresFrom(cluster, acked, 1, 1);
        assertThat(cluster.live()).noneMatch(d -> d.tmId().equals(dead));
        assertThat(cluster.job.restarts()).as("the loss is part of the restart the failure began").isEqualTo(1);
    }

    @Test
    void aFailureWithoutACompletedCheckpointRestartsWithEmptyState() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.fail(cluster.current(SOURCE, 0), "boom");
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY);

        assertThat(cluster.live()).hasSize(taskCount(cluster.graph))
                .allSatisfy(d -> {
                    assertThat(d.attemptNumber()).isEqualTo(1);
                    assertThat(d.task().hasRestore()).isFalse();
                });
    }

    @Test
    void whenTheRestartsAreUsedUpTheJobFailsWithTheCause() {
        FakeCluster cluster = started(FakeCluster.withRestarts(1), FakeCluster.SESSION);
        allRunning(cluster);
        cluster.fail(cluster.current(SOURCE, 0), "first");
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY);
        allRunning(cluster);

        cluster.fail(cluster.current(SOURCE, 1), "second");

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("second").contains("no restarts left");
        assertThat(cluster.job.checkpointCoordinator().pendingCount()).isZero();
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

    static List<Deployment> triggered(FakeCluster cluster, long checkpointId) {
        return cluster.gateways.triggers().stream().filter(t -> t.request().getCheckpointId() == checkpointId)
                .map(t -> cluster.live().stream().filter(d -> d.attempt().equals(t.request().getAttempt()))
                        .findFirst().orElseThrow())
                .toList();
    }

    // ------------------------------------------------------------------ periodic enumerator work

    private static final long DISCOVERY_MS = 500;

    /** A source watching {@code directory} (parallelism 1) -> collect. */
    private FakeCluster watching(Path directory, JobSettings settings) {
        JobBuilder job = new JobBuilder("watching");
        job.fromSource("lines", TextFileSource.watching(directory.toString(), Duration.ofMillis(DISCOVERY_MS)))
                .parallelism(1).map(String::length, Types.INT).collect("lengths");
        FakeCluster cluster = new FakeCluster(JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING), settings,
                FakeSlotPool.of(1, 4), FakeCluster.SESSION);
        cluster.startStreaming();
        allRunning(cluster);
        return cluster;
    }

    private static void requestSplit(FakeCluster cluster, Deployment source) {
        cluster.job.onOperatorEvent(source.attempt(), cluster.graph.vertex(SOURCE).head().id(),
                OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance()).build());
    }

    private static long splitsSentTo(FakeCluster cluster, Deployment d) {
        return cluster.gateways.eventsTo(d.attempt()).stream().filter(e -> e.event().hasAddSplits()).count();
    }

    @Test
    void aWatchingSourceListsItsDirectoryPeriodicallyAndHandsNewFilesToWaitingReaders() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        Deployment source = cluster.current(SOURCE, 0);
        cluster.scheduler.advance(DISCOVERY_MS);
        requestSplit(cluster, source);
        assertThat(splitsSentTo(cluster, source)).as("no file yet: the reader waits").isZero();

        Files.writeString(input.resolve("a.txt"), "one\ntwo\n");
        cluster.scheduler.advance(DISCOVERY_MS - 1);
        assertThat(splitsSentTo(cluster, source)).as("before the next listing").isZero();
        cluster.scheduler.advance(1);

        assertThat(splitsSentTo(cluster, source)).isEqualTo(1);
    }

    @Test
    void aRestartReplacesTheEnumeratorAndTheOldOnesListingsStop() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        Files.writeString(input.resolve("a.txt"), "one\n");
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        Deployment first = cluster.current(SOURCE, 0);
        cluster.scheduler.advance(DISCOVERY_MS);
        requestSplit(cluster, first);
        assertThat(splitsSentTo(cluster, first)).isEqualTo(1);

        cluster.fail(first, "boom");
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY);
        allRunning(cluster);
        Deployment second = cluster.current(SOURCE, 0);
        assertThat(second.attemptNumber()).isEqualTo(1);
        requestSplit(cluster, second);

        assertThat(splitsSentTo(cluster, second)).as("without a checkpoint the new enumerator hands the file out again")
                .isEqualTo(1);
        cluster.scheduler.advance(10 * DISCOVERY_MS);
        assertThat(cluster.scheduler.pending()).as("one listing timer, the new enumerator's").isEqualTo(1);
    }

    @Test
    void aListingThatFailsRestartsTheJob() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        cluster.scheduler.advance(DISCOVERY_MS);
        Files.delete(input);

        cluster.scheduler.advance(DISCOVERY_MS);

        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.cancels()).isNotEmpty();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
    }
}

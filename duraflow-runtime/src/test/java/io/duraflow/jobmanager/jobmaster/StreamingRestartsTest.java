package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.DELAY;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.SOURCE;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.allRunning;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.completeFirstCheckpoint;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.taskCount;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A streaming job's global restart after a task failure or a lost TaskManager: every task cancelled,
 * redeployed after the restart delay from the latest completed checkpoint, until the restarts are
 * used up.
 */
class StreamingRestartsTest {
    @TempDir
    Path root;

    private FakeCluster started(JobSettings settings, String session) {
        return StreamingJobMasterTest.started(root, settings, session);
    }

    private FakeCluster started() {
        return started(FakeCluster.SETTINGS, FakeCluster.SESSION);
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
}

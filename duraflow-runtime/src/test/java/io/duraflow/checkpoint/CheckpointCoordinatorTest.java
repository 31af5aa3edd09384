package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.ALL;
import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_1;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_0;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_1;
import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointCoordinatorTest {
    private static final long INTERVAL = 100;
    private static final long TIMEOUT = 1_000;

    @TempDir
    Path tmp;

    private CoordinatorHarness started(CheckpointCoordinatorConfig config) {
        return CoordinatorHarness.started(tmp, config);
    }

    @Test
    void aPeriodicTriggerSnapshotsTheCoordinatorsFirstThenTriggersOnlyTheSources() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL - 1);
        assertThat(h.calls).isEmpty();

        h.advance(1);

        assertThat(h.calls).containsExactly("snapshot coordinators 1", "trigger 1 " + SOURCE_0,
                "trigger 1 " + SOURCE_1);
        assertThat(h.tasks.triggers).singleElement().satisfies(trigger -> {
            assertThat(trigger.timestampMs()).isEqualTo(INTERVAL);
            assertThat(trigger.kind()).isEqualTo(CheckpointKind.CHECKPOINT);
            assertThat(trigger.directory()).isEqualTo(h.directories.checkpoint(1));
        });
        assertThat(h.coordinator.pendingCount()).isEqualTo(1);
    }

    @Test
    void theAcknowledgementsOfAllTasksCompleteTheCheckpointDurablyAndNotifyEveryTask() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL);
        h.ack(SOURCE_0, 1);
        h.ack(SOURCE_1, 1);
        h.ack(SUM_0, 1);
        h.settle();
        assertThat(h.store.retained()).isEmpty();
        assertThat(h.tasks.completed).isEmpty();

        h.ack(SUM_1, 1);
        h.settle();

        CompletedCheckpoint stored = h.store.latest().orElseThrow();
        assertThat(stored.checkpointId()).isEqualTo(1);
        assertThat(CheckpointMetadataFormat.read(h.fs, h.directories.metadata(1), CoordinatorHarness.JOB, 1))
                .isEqualTo(stored);
        assertThat(stored.operators()).containsOnlyKeys("source", "sum");
        assertThat(stored.operators().get("source").coordinatorState()).containsExactly(1);
        assertThat(stored.operators().get("sum").subtasks()).containsOnlyKeys(0, 1);
        assertThat(stored.maxParallelism()).isEqualTo(CoordinatorHarness.MAX_PARALLELISM);
        assertThat(h.tasks.completed.get(1L)).containsExactlyInAnyOrderElementsOf(ALL);
        assertThat(h.coordinators.completed).containsExactly(1L);
        assertThat(h.coordinator.pendingCount()).isZero();
        assertThat(h.coordinator.history()).singleElement().satisfies(stats -> {
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.COMPLETED);
            assertThat(stats.files()).isEqualTo(4);
            assertThat(stats.stateSize()).isEqualTo(41); // 4 files of 10 bytes and a 1-byte coordinator state
        });
    }

    @Test
    void aDeclineAbortsAtOnceNotifiesEveryTaskAndDeletesWhatWasWritten() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        h.ack(SOURCE_0, 1);
        h.ack(SUM_0, 1);
        h.settle();
        assertThat(h.exists(h.stateFile(SUM_0, 1))).isTrue();

        h.coordinator.decline(SOURCE_1, 1, CheckpointFailureReason.DECLINED, "not ready");
        h.settle();

        assertThat(h.tasks.aborted.get(1L)).containsExactlyInAnyOrderElementsOf(ALL);
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.coordinator.pendingCount()).isZero();
        assertThat(h.coordinator.history()).singleElement().satisfies(stats -> {
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.FAILED);
            assertThat(stats.failure().reason()).isEqualTo(CheckpointFailureReason.DECLINED);
            assertThat(stats.failure().task()).isEqualTo(SOURCE_1.toString());
            assertThat(stats.failure().message()).isEqualTo("not ready");
        });
        assertThat(h.store.retained()).isEmpty();
        assertThat(h.jobFailures).isEmpty();
    }

    @Test
    void aCheckpointNotCompleteWithinTheTimeoutExpiresAndLeavesNoFiles() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        h.ack(SOURCE_0, 1);
        h.settle();
        h.advance(TIMEOUT - 1);
        assertThat(h.coordinator.pendingCount()).isEqualTo(1);

        h.advance(1);

        assertThat(h.coordinator.history().get(0).failure().reason()).isEqualTo(CheckpointFailureReason.EXPIRED);
        assertThat(h.tasks.aborted.get(1L)).containsExactlyInAnyOrderElementsOf(ALL);
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        // The next periodic trigger follows, since nothing is in progress any more.
        assertThat(h.coordinator.pendingCount()).isEqualTo(1);
        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::checkpointId).containsExactly(1L, 2L);
    }

    @Test
    void theMinPauseIsCountedFromTheLastCompletion() {
        long minPause = 500;
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, minPause, 1, 0, 1));
        h.advance(INTERVAL);
        h.advance(50);
        h.ackAll(1); // completes at 150
        assertThat(h.store.latest()).isPresent();

        h.advance(minPause - 1);
        assertThat(h.tasks.triggers).hasSize(1);
        h.advance(1);

        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::timestampMs).containsExactly(100L, 650L);
    }

    @Test
    void noMoreThanMaxConcurrentCheckpointsAreInProgressAndTheNextFollowsWhenOneEnds() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 2, 0, 1));
        h.advance(INTERVAL);
        h.advance(INTERVAL);
        assertThat(h.coordinator.pendingCount()).isEqualTo(2);

        h.advance(5 * INTERVAL);
        assertThat(h.coordinator.pendingCount()).isEqualTo(2);
        assertThat(h.tasks.triggers).hasSize(2);

        h.ackAll(2); // the newer one completes first; it subsumes checkpoint 1, which is aborted

        assertThat(h.coordinator.history()).extracting(CheckpointStats::checkpointId, CheckpointStats::status)
                .startsWith(org.assertj.core.groups.Tuple.tuple(2L, CheckpointStats.Status.COMPLETED),
                        org.assertj.core.groups.Tuple.tuple(1L, CheckpointStats.Status.FAILED));
        // Overdue since 300 ms: checkpoint 3 follows at once; 4 one interval later.
        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::checkpointId).containsExactly(1L, 2L, 3L);
        assertThat(h.tasks.triggers.get(2).timestampMs()).isEqualTo(7 * INTERVAL);
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::timestampMs).endsWith(8 * INTERVAL);
        assertThat(h.jobFailures).as("subsumed checkpoints do not count as failures").isEmpty();
    }

    @Test
    void aCompletedCheckpointSubsumesOlderOnesBeyondNumRetainedAndDeletesTheirFiles() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 2));
        for (long id = 1; id <= 3; id++) {
            h.advance(INTERVAL);
            h.ackAll(id);
        }

        assertThat(h.store.retained()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L, 3L);
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.exists(h.stateFile(SUM_0, 1))).isFalse();
        assertThat(h.exists(h.directories.metadata(2))).isTrue();
        assertThat(h.exists(h.stateFile(SUM_0, 2))).isTrue();
        assertThat(h.fs.list(h.pointerDirectory)).extracting(status -> status.path().name())
                .containsExactly("checkpoint-0000000000000000002", "checkpoint-0000000000000000003");
    }

    /** Removing a subsumed checkpoint's pointer is I/O the sinks' commits need not wait for. */
    @Test
    void theTasksHearOfACompletionBeforeTheSubsumedPointerIsRemoved() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        for (long id = 1; id <= 2; id++) {
            h.advance(INTERVAL);
            h.ackAll(id);
        }

        assertThat(h.tasks.pointersWhenNotified.get(2L))
                .containsExactly("checkpoint-0000000000000000001", "checkpoint-0000000000000000002");
        assertThat(h.fs.list(h.pointerDirectory)).extracting(status -> status.path().name())
                .containsExactly("checkpoint-0000000000000000002");
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
    }

    @Test
    void aLateAcknowledgementOfAnAbortedCheckpointDiscardsItsState() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 1, CheckpointFailureReason.DECLINED, "not ready");
        h.settle();
        assertThat(h.tasks.aborted).containsKey(1L);

        // The abort notification crossed the task's upload: its state arrives afterwards.
        h.ack(SUM_1, 1);
        assertThat(h.exists(h.stateFile(SUM_1, 1))).isTrue();
        h.settle();

        assertThat(h.exists(h.stateFile(SUM_1, 1))).isFalse();
        assertThat(h.exists(h.directories.checkpoint(1))).as("the directory the late write re-created").isFalse();
        assertThat(h.store.retained()).isEmpty();
    }

    @Test
    void anAcknowledgementFromAnAttemptTheCheckpointDoesNotWaitForIsDiscarded() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        CheckpointTask earlierAttempt = new CheckpointTask(1, 0, 7);

        h.ack(earlierAttempt, 1);
        h.settle();

        assertThat(h.exists(h.stateFile(earlierAttempt, 1))).isFalse();
        assertThat(h.coordinator.pendingCount()).isEqualTo(1);
        h.ackAll(1);
        assertThat(h.store.latest().orElseThrow().checkpointId()).isEqualTo(1);
    }

    @Test
    void theJobFailsOverWhenMoreCheckpointsFailThanTolerated() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 1, 1));
        h.advance(INTERVAL);
        // Two subtasks decline checkpoint 1: it counts once.
        h.coordinator.decline(SOURCE_0, 1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, "bad position");
        h.coordinator.decline(SOURCE_1, 1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, "bad position");
        h.settle();
        assertThat(h.jobFailures).isEmpty();
        assertThat(h.coordinator.failureManager().continuousFailures()).isEqualTo(1);

        h.advance(INTERVAL);
        h.advance(TIMEOUT);

        assertThat(h.jobFailures).singleElement().asString()
                .contains("tolerable-failed-checkpoints").contains("checkpoint 2 failed (EXPIRED");
    }

    @Test
    void aCompletedCheckpointResetsTheFailureCount() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 1, 1));
        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 1, CheckpointFailureReason.DECLINED, "no");
        h.settle();
        h.advance(INTERVAL);
        h.ackAll(2);
        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 3, CheckpointFailureReason.DECLINED, "no");
        h.settle();

        assertThat(h.jobFailures).isEmpty();
    }

    @Test
    void softDeclinesNeverCountButHardOnesDo() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        for (long id = 1; id <= 5; id++) {
            h.advance(INTERVAL);
            h.coordinator.decline(SOURCE_0, id, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "chunk open");
            h.settle();
        }
        assertThat(h.jobFailures).isEmpty();
        assertThat(h.coordinator.history()).hasSize(5);

        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 6, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, "chunk never ends");
        h.settle();

        assertThat(h.jobFailures).hasSize(1);
    }

    @Test
    void noCheckpointIsTakenWhileNotEveryTaskRuns() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.tasks.allRunning = false;
        h.advance(INTERVAL);
        h.advance(INTERVAL);
        assertThat(h.calls).isEmpty();
        assertThat(h.counter.get()).isEqualTo(1);
        assertThat(h.jobFailures).isEmpty();

        h.tasks.allRunning = true;
        h.advance(INTERVAL);

        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::checkpointId).containsExactly(1L);
    }

    @Test
    void aTriggerWhoseTasksStopWhileItsIdIsDrawnStartsNothingAndDoesNotCount() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.main.advance(INTERVAL); // the id is being drawn on the I/O thread
        h.tasks.allRunning = false;
        h.settle();

        assertThat(h.calls).isEmpty();
        assertThat(h.coordinator.pendingCount()).isZero();
        h.advance(TIMEOUT);
        assertThat(h.jobFailures).isEmpty();

        h.tasks.allRunning = true;
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::checkpointId).containsExactly(2L);
    }

    @Test
    void anOlderCheckpointThatFinalizesAfterANewerOneIsSubsumedNotCounted() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 2, 0, 1));
        h.advance(INTERVAL);
        h.advance(INTERVAL);
        for (CheckpointTask task : ALL) {
            h.ack(task, 2);
        }
        for (CheckpointTask task : ALL) {
            h.ack(task, 1); // both finalize; the I/O thread writes 2 first
        }
        h.settle();

        assertThat(h.store.retained()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L);
        assertThat(h.coordinator.history()).filteredOn(stats -> stats.checkpointId() == 1).singleElement()
                .satisfies(stats -> assertThat(stats.failure().reason()).isEqualTo(CheckpointFailureReason.SUBSUMED));
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.jobFailures).isEmpty();
    }

    @Test
    void aFinalizingCheckpointDoesNotExpireAndItsLateDeclineIsIgnored() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL);
        for (CheckpointTask task : ALL) {
            h.ack(task, 1);
        }
        h.main.runDue(); // the metadata write is queued on the I/O thread, not run yet
        assertThat(h.io.queued()).isPositive();

        h.main.advance(TIMEOUT);
        h.coordinator.decline(SOURCE_0, 1, CheckpointFailureReason.DECLINED, "too late");
        h.settle();

        assertThat(h.store.latest().orElseThrow().checkpointId()).isEqualTo(1);
        assertThat(h.tasks.aborted).isEmpty();
        assertThat(h.jobFailures).isEmpty();
    }

    @Test
    void aFailingFinalizationAbortsAndDeletesTheMetadata() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        h.leading.set(false); // the store refuses to add: this JobManager no longer leads

        h.ackAll(1);

        assertThat(h.coordinator.history()).singleElement().satisfies(stats ->
                assertThat(stats.failure().reason()).isEqualTo(CheckpointFailureReason.FINALIZE_FAILURE));
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.tasks.completed).isEmpty();
        assertThat(h.tasks.aborted.get(1L)).containsExactlyInAnyOrderElementsOf(ALL);
    }

    @Test
    void aCoordinatorSnapshotThatFailsAbortsBeforeAnyTaskIsTriggered() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.coordinators.next = CompletableFuture.failedFuture(new IllegalStateException("enumerator broke"));

        h.advance(INTERVAL);

        assertThat(h.tasks.triggers).isEmpty();
        assertThat(h.tasks.aborted).isEmpty();
        assertThat(h.coordinator.history().get(0).failure().message()).contains("enumerator broke");
    }

    @Test
    void aCoordinatorSnapshotArrivingAfterTheCheckpointExpiredTriggersNothing() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        CompletableFuture<Map<String, byte[]>> slow = new CompletableFuture<>();
        h.coordinators.next = slow;
        h.advance(INTERVAL);
        h.coordinator.stopPeriodic();
        h.advance(TIMEOUT);
        assertThat(h.coordinator.history().get(0).failure().reason()).isEqualTo(CheckpointFailureReason.EXPIRED);

        slow.complete(Map.of("source", new byte[] {1}));
        h.settle();

        assertThat(h.tasks.triggers).isEmpty();
    }

    @Test
    void aNewCoordinatorOnTheSameStorageRestoresTheLatestCheckpointAndContinuesItsIds() throws Exception {
        CoordinatorHarness first = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        first.advance(INTERVAL);
        first.ackAll(1);
        first.advance(INTERVAL);
        first.ackAll(2);

        CoordinatorHarness second = new CoordinatorHarness(tmp, config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        CompletableFuture<Optional<CompletedCheckpoint>> restored = second.coordinator.restoreLatest();
        second.settle();

        assertThat(restored.join().orElseThrow().checkpointId()).isEqualTo(2);
        second.coordinator.startPeriodic();
        second.advance(INTERVAL);
        assertThat(second.tasks.triggers).extracting(CheckpointTrigger::checkpointId).containsExactly(3L);
        second.ackAll(3);
        assertThat(second.exists(second.directories.checkpoint(2))).as("subsumed after the restore").isFalse();
        assertThat(second.exists(second.directories.metadata(3))).isTrue();
    }

    @Test
    void aSavepointGoesToItsOwnDirectoryIsNotRetainedAndIsNeverDeletedByTheJob() throws Exception {
        CoordinatorHarness h = new CoordinatorHarness(tmp, config(0, TIMEOUT, 0, 1, 0, 1));
        FsPath target = FsPath.of(tmp.resolve("savepoints"));

        CompletableFuture<CompletedCheckpoint> savepoint = h.coordinator.triggerSavepoint(target);
        h.settle();
        FsPath directory = target.resolve("savepoint-" + CoordinatorHarness.JOB + "-1");
        assertThat(h.tasks.triggers.get(0).directory()).isEqualTo(directory);
        for (CheckpointTask task : ALL) {
            h.coordinator.acknowledge(task, 1, h.writeState(task, 1), CheckpointMetrics.NONE);
        }
        h.settle();

        CompletedCheckpoint done = savepoint.join();
        assertThat(done.kind()).isEqualTo(CheckpointKind.SAVEPOINT);
        assertThat(done.metadataFile()).isEqualTo(directory.resolve(CheckpointDirectories.METADATA_FILE));
        assertThat(CheckpointMetadataFormat.read(h.fs, done.metadataFile())).isEqualTo(done);
        assertThat(h.store.retained()).isEmpty();

        CompletableFuture<CompletedCheckpoint> checkpoint = h.coordinator.triggerCheckpoint();
        h.settle();
        h.ackAll(2);
        assertThat(checkpoint.join().checkpointId()).isEqualTo(2);
        assertThat(h.exists(done.metadataFile())).isTrue();
    }

    @Test
    void leftoverCheckpointDirectoriesAreDeletedWhenALaterCheckpointCompletes() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 1, CheckpointFailureReason.DECLINED, "no");
        h.settle();
        // A task that never heard of the abort writes its state afterwards and never acknowledges.
        h.writeState(SUM_0, 1);
        assertThat(h.exists(h.directories.checkpoint(1))).isTrue();

        h.advance(INTERVAL);
        h.ackAll(2);

        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.exists(h.directories.checkpoint(2))).isTrue();
    }
}

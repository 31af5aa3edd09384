package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.JOB;
import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckpointRestorer} alone, on the storage a first leader's coordinator wrote: a new
 * leader's restorer over the same store, id counter and checkpoint directory, with its own
 * (empty) pending checkpoints. One test per rule and per condition of rule 1's deletions.
 */
class CheckpointRestorerTest {
    private static final long INTERVAL = 100;
    private static final CheckpointCoordinatorConfig CONFIG = config(INTERVAL, 1_000, 0, 1, 5, 2);
    private static final long SAVEPOINT_ID = 7;

    @TempDir
    Path tmp;

    /** A new leader's side: storage from the harness, the restorer built as the coordinator builds it. */
    private final class Leader {
        final CoordinatorHarness h = new CoordinatorHarness(tmp, CONFIG);
        final PendingCheckpoints pending = new PendingCheckpoints(h.store);
        final CheckpointRestorer restorer;

        Leader() {
            MainThreadIo io = new MainThreadIo(h.io, h.main);
            CheckpointCoordinator.Services services = new CheckpointCoordinator.Services(h.fs, h.main, h.io,
                    h.main::now, h.counter, h.store, h.tasks, h.coordinators, h.jobFailures::add);
            CheckpointFileDisposal disposal = new CheckpointFileDisposal(h.directories,
                    new CheckpointFileCleaner(JOB, h.fs, h.directories, h.io));
            CheckpointFailures failures = new CheckpointFailures(CONFIG, h.main, h.main::now, h.jobFailures::add, io,
                    h.store);
            restorer = new CheckpointRestorer(JOB, h.directories, services, io, disposal, failures, pending);
        }

        CheckpointCoordinator.RestorePoint restore(boolean adopting) {
            CompletableFuture<CheckpointCoordinator.RestorePoint> point = restorer.restore(adopting);
            assertThat(point).as("the store is read on the I/O executor").isNotDone();
            h.settle();
            return point.join();
        }
    }

    /** A first leader completes checkpoints 1 and 2 (both retained); returns its harness. */
    private CoordinatorHarness twoCompletedCheckpoints() {
        CoordinatorHarness first = new CoordinatorHarness(tmp, CONFIG);
        first.coordinator.startPeriodic();
        first.advance(INTERVAL);
        first.ackAll(1);
        first.advance(INTERVAL);
        first.ackAll(2);
        first.coordinator.shutdown();
        first.settle();
        return first;
    }

    private FsPath write(CoordinatorHarness h, FsPath file) throws Exception {
        h.fs.writeFile(file, new byte[10], WriteMode.OVERWRITE);
        return file;
    }

    /** Savepoint 7 of another job, with one state file inside its directory; returns its metadata file. */
    private FsPath writeSavepoint(CoordinatorHarness h) throws Exception {
        FsPath directory = FsPath.of(tmp.resolve("savepoints/savepoint-old-7"));
        FsPath state = write(h, directory.resolve("state"));
        KeyGroupRange all = new KeyGroupRange(0, CoordinatorHarness.MAX_PARALLELISM - 1);
        CompletedCheckpoint savepoint = new CompletedCheckpoint("old", SAVEPOINT_ID, 1, 2,
                CoordinatorHarness.MAX_PARALLELISM, CheckpointKind.SAVEPOINT, Map.of("sum",
                        new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(List.of(
                                new KeyGroupsStateHandle(all, new long[all.size()],
                                        new FileSegmentHandle(state, 0, 10))), List.of())))),
                directory.resolve("_metadata"));
        CheckpointMetadataFormat.write(h.fs, savepoint);
        return savepoint.metadataFile();
    }

    private static CompletedCheckpoint ownCheckpoint(CoordinatorHarness h, long id) {
        return new CompletedCheckpoint(JOB, id, 1, 2, CoordinatorHarness.MAX_PARALLELISM, CheckpointKind.CHECKPOINT,
                Map.of(), h.directories.metadata(id));
    }

    @Test
    void anEmptyStoreRestoresNothingAndTheFirstCheckpointIsOne() {
        Leader leader = new Leader();

        CheckpointCoordinator.RestorePoint point = leader.restore(false);

        assertThat(point).isEqualTo(new CheckpointCoordinator.RestorePoint(Optional.empty(), false, 1));
        assertThat(leader.restorer.restoredFrom()).isEmpty();
        assertThat(leader.restorer.checkpointsFull()).isFalse();
    }

    @Test
    void rule1RestoresTheLatestRetainedCheckpointAndMovesTheIdCounterPastIt() throws Exception {
        twoCompletedCheckpoints();
        Leader leader = new Leader();

        CheckpointCoordinator.RestorePoint point = leader.restore(false);

        assertThat(point.checkpoint()).hasValueSatisfying(latest -> assertThat(latest.checkpointId()).isEqualTo(2));
        assertThat(point.initial()).isFalse();
        assertThat(point.nextId()).isEqualTo(3);
        assertThat(leader.h.counter.get()).isEqualTo(3);
        assertThat(leader.restorer.restoredFrom()).isEqualTo(point.checkpoint());
    }

    @Test
    void rule1DeletesUnreferencedSharedFilesAndCheckpointDirectoriesNeitherRetainedNorPending() throws Exception {
        CoordinatorHarness first = twoCompletedCheckpoints();
        FsPath orphan = write(first, first.directories.shared().resolve("orphan"));
        FsPath leftover = write(first, first.directories.checkpoint(5).resolve("state"));
        Leader leader = new Leader();

        leader.restore(false);

        assertThat(leader.h.exists(orphan)).isFalse();
        assertThat(leader.h.exists(first.directories.checkpoint(5))).isFalse();
        assertThat(leader.h.exists(leftover)).isFalse();
        assertThat(leader.h.exists(first.stateFile(CoordinatorHarness.SUM_0, 1))).as("retained").isTrue();
        assertThat(leader.h.exists(first.stateFile(CoordinatorHarness.SUM_0, 2))).as("retained").isTrue();
    }

    @Test
    void rule1AnAdoptingRestoreDeletesLeftoverCheckpointDirectoriesButNoSharedFile() throws Exception {
        CoordinatorHarness first = twoCompletedCheckpoints();
        FsPath written = write(first, first.directories.shared().resolve("written-by-an-adopted-task"));
        write(first, first.directories.checkpoint(5).resolve("state"));
        Leader leader = new Leader();

        CheckpointCoordinator.RestorePoint point = leader.restore(true);

        assertThat(point.checkpoint()).hasValueSatisfying(latest -> assertThat(latest.checkpointId()).isEqualTo(2));
        assertThat(leader.h.exists(written)).isTrue();
        assertThat(leader.h.exists(first.directories.checkpoint(5))).isFalse();
    }

    @Test
    void rule1WhileATriggerDrawsAnIdNoCheckpointDirectoryIsDeleted() throws Exception {
        CoordinatorHarness first = twoCompletedCheckpoints();
        FsPath orphan = write(first, first.directories.shared().resolve("orphan"));
        write(first, first.directories.checkpoint(5).resolve("state"));
        Leader leader = new Leader();
        // The id being drawn may be one whose directory is listed: it is not known yet.
        leader.pending.triggerStarted();

        leader.restore(false);

        assertThat(leader.h.exists(first.directories.checkpoint(5))).isTrue();
        assertThat(leader.h.exists(orphan)).as("listed before any id was drawn").isFalse();
    }

    @Test
    void rule1AfterTheStoreSkippedAnUnreadableCheckpointNothingIsDeleted() throws Exception {
        CoordinatorHarness first = twoCompletedCheckpoints();
        FsPath orphan = write(first, first.directories.shared().resolve("orphan"));
        write(first, first.directories.checkpoint(5).resolve("state"));
        first.fs.writeFile(first.pointerDirectory.resolve(String.format("checkpoint-%019d", 9)),
                new byte[] {1, 2, 3}, WriteMode.OVERWRITE);
        Leader leader = new Leader();

        CheckpointCoordinator.RestorePoint point = leader.restore(false);

        assertThat(point.checkpoint()).hasValueSatisfying(latest -> assertThat(latest.checkpointId()).isEqualTo(2));
        assertThat(leader.h.exists(orphan)).isTrue();
        assertThat(leader.h.exists(first.directories.checkpoint(5))).isTrue();
    }

    @Test
    void rule2NoClaimRestoresTheSavepointAndCheckpointsAreFullUntilOneCompletes() throws Exception {
        Leader leader = new Leader();
        FsPath metadata = writeSavepoint(leader.h);
        leader.restorer.initialRestore(new InitialRestore(metadata, false));

        CheckpointCoordinator.RestorePoint point = leader.restore(false);

        assertThat(point.initial()).isTrue();
        assertThat(point.checkpoint()).hasValueSatisfying(restored -> {
            assertThat(restored.jobId()).isEqualTo("old");
            assertThat(restored.checkpointId()).isEqualTo(SAVEPOINT_ID);
        });
        assertThat(point.nextId()).isEqualTo(SAVEPOINT_ID + 1);
        assertThat(leader.restorer.restoredFrom()).isEqualTo(point.checkpoint());
        assertThat(leader.restorer.checkpointsFull()).isTrue();
        assertThat(leader.restorer.subsumedBy(ownCheckpoint(leader.h, 8), List.of()))
                .as("a restore without claim is never the job's to delete").isEmpty();

        leader.restorer.checkpointCompleted();

        assertThat(leader.restorer.checkpointsFull()).isFalse();
        assertThat(leader.h.exists(metadata)).isTrue();
    }

    @Test
    void rule2ClaimMakesTheRestoredCheckpointSubsumedByTheJobsFirstCompletedOneOnce() throws Exception {
        Leader leader = new Leader();
        FsPath metadata = writeSavepoint(leader.h);
        leader.restorer.initialRestore(new InitialRestore(metadata, true));

        CompletedCheckpoint restored = leader.restore(false).checkpoint().orElseThrow();

        assertThat(leader.restorer.checkpointsFull()).as("a claimed checkpoint is the job's own").isFalse();
        CompletedCheckpoint eight = ownCheckpoint(leader.h, 8);
        CompletedCheckpoint dropped = ownCheckpoint(leader.h, 6);
        assertThat(leader.restorer.subsumedBy(eight, List.of(dropped))).containsExactly(dropped, restored);
        assertThat(leader.restorer.subsumedBy(ownCheckpoint(leader.h, 9), List.of(eight))).containsExactly(eight);
    }

    @Test
    void rule2OnceTheStoreHoldsACheckpointOfTheJobTheInitialRestoreIsNotRead() throws Exception {
        twoCompletedCheckpoints();
        Leader leader = new Leader();
        leader.restorer.initialRestore(new InitialRestore(FsPath.of(tmp.resolve("gone/_metadata")), false));

        CheckpointCoordinator.RestorePoint point = leader.restore(false);

        assertThat(point.initial()).isFalse();
        assertThat(point.checkpoint()).hasValueSatisfying(latest -> assertThat(latest.jobId()).isEqualTo(JOB));
        assertThat(leader.restorer.checkpointsFull()).isFalse();
    }
}

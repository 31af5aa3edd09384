package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckpointFileDisposal} rule 9 ({@link EarlierRunSweep}): a new leader did not adopt the
 * job's kept tasks and restored checkpoint 3 with the next id 10; the kept tasks, cancelled, went on
 * writing files of their in-flight checkpoint 4 after the restore listed the directories.
 */
class EarlierRunSweepTest {
    private static final String JOB = "job-1";
    private static final long FIRST_ID_OF_RUN = 10;

    @TempDir
    Path tmp;

    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private final CoordinatorHarness.ManualIo io = new CoordinatorHarness.ManualIo();
    private CheckpointDirectories directories;
    private CheckpointFileDisposal disposal;
    private FsPath subtaskDirectory;
    private FsPath keptRunDirectory;

    @BeforeEach
    void setUp() {
        directories = CheckpointDirectories.of(FsPath.of(tmp), JOB);
        disposal = new CheckpointFileDisposal(directories, new CheckpointFileCleaner(JOB, fs, directories, io));
        subtaskDirectory = directories.sharedFileMergingDirectory("subtask-0-1-v1");
        keptRunDirectory = directories.taskOwnedFileMergingDirectory("tm-1-kept");
    }

    private FsPath write(FsPath file) throws IOException {
        fs.writeFile(file, new byte[3], WriteMode.OVERWRITE);
        return file;
    }

    private static void append(FsPath file) throws IOException {
        Files.write(Path.of(file.toString()), new byte[5], StandardOpenOption.APPEND);
    }

    private static boolean exists(FsPath path) {
        return Files.exists(Path.of(path.toString()));
    }

    private CompletedCheckpoint completed(long checkpointId) {
        return new CompletedCheckpoint(JOB, checkpointId, 0, 0, 8, CheckpointKind.CHECKPOINT, Map.of(),
                directories.metadata(checkpointId));
    }

    /** Checkpoint {@code id} completes; nothing is subsumed (several are retained). */
    private void complete(long id) {
        disposal.onCheckpointCompleted(id, List.of(), Set.of(3L, id));
        io.runAll();
    }

    @Test
    void lateFilesOfTheCancelledRunGoOnceUnreferencedAndUnchangedButNotTheRestoredRunsOrUnnamedOnes()
            throws IOException {
        FsPath restored = write(subtaskDirectory.resolve("cp3-restored"));
        disposal.restore(List.of(completed(3)));
        disposal.register(3, Set.of(restored));
        disposal.deleteOrphansAfterRestore(List.of(restored), List.of(subtaskDirectory), Set.of(3L), false,
                FIRST_ID_OF_RUN);
        io.runAll();
        // After the listing: the cancelled tasks' late files, and the restored run's own.
        FsPath lateShared = write(subtaskDirectory.resolve("cp4-late"));
        FsPath latePrivate = write(keptRunDirectory.resolve("cp4-private"));
        FsPath stillWritten = write(subtaskDirectory.resolve("cp4-growing"));
        FsPath withoutId = write(keptRunDirectory.resolve("0b8e5c1a-7d4f-4a8e-9f3e-2c1d0e9f8a7b"));
        FsPath ofThisRun = write(subtaskDirectory.resolve("cp10-acknowledged"));
        FsPath pendingOfThisRun = write(subtaskDirectory.resolve("cp11-pending"));
        disposal.register(10, Set.of(ofThisRun));

        complete(10);
        assertThat(List.of(lateShared, latePrivate, stillWritten)).as("first sight: a writer may still append")
                .allMatch(EarlierRunSweepTest::exists);

        append(stillWritten);
        complete(11);
        assertThat(exists(lateShared)).isFalse();
        assertThat(exists(latePrivate)).isFalse();
        assertThat(exists(stillWritten)).as("it grew since the last sweep").isTrue();

        complete(12);
        assertThat(exists(stillWritten)).as("unchanged since the last sweep").isFalse();

        // After the first eight completions, sweeps come at the 16th, 32nd, ...
        for (long id = 13; id <= 17; id++) {
            complete(id);
        }
        FsPath later = write(keptRunDirectory.resolve("cp5-later"));
        for (long id = 18; id <= 40; id++) { // completions 9 to 31 after the restore: one sweep (16th) sees it
            complete(id);
        }
        assertThat(exists(later)).isTrue();
        complete(41); // the 32nd
        assertThat(exists(later)).isFalse();

        assertThat(exists(restored)).as("listed and referenced: adoption's").isTrue();
        assertThat(exists(withoutId)).as("no checkpoint id in its name").isTrue();
        assertThat(exists(ofThisRun)).isTrue();
        assertThat(exists(pendingOfThisRun)).as("the restored run's, not acknowledged yet").isTrue();
    }

    @Test
    void afterARestoreThatAdoptedTheRunningTasksTheirFilesAreNeverSwept() throws IOException {
        disposal.restore(List.of(completed(3)));
        disposal.deleteOrphansAfterRestore(List.of(), List.of(), Set.of(3L), false, -1);
        io.runAll();
        FsPath ofAdoptedRun = write(subtaskDirectory.resolve("cp4-adopted"));

        for (long id = 10; id < 14; id++) {
            complete(id);
        }
        assertThat(exists(ofAdoptedRun)).isTrue();
    }

    @Test
    void aNewLeadersRestoreSweepsBelowTheFirstIdItDrawsButAnAdoptingOneSweepsNothing() throws Exception {
        for (boolean adopting : new boolean[] {false, true}) {
            Path root = tmp.resolve(adopting ? "adopting" : "restoring");
            CheckpointIdCounter counter = new StandaloneCheckpointIdCounter(); // shared, as ZooKeeper's is
            CheckpointCoordinatorConfig config = CoordinatorHarness.config(100, 1_000, 0, 1, 0, 1);
            CoordinatorHarness old = new CoordinatorHarness(root, config, counter);
            old.coordinator.startPeriodic();
            old.advance(100);
            old.ackAll(1);
            old.advance(100); // checkpoint 2 is in flight when the leader dies

            CoordinatorHarness next = new CoordinatorHarness(root, config, counter);
            if (adopting) {
                next.coordinator.restoreForAdoption();
            } else {
                next.coordinator.restoreLatest();
            }
            next.settle();
            FsPath shared = next.directories.sharedFileMergingDirectory("subtask-0-2-v1");
            FsPath late = write(shared.resolve("cp2-late")); // a kept task's, after the listing
            FsPath own = write(shared.resolve("cp3-own")); // the restored run's first checkpoint's
            next.coordinator.startPeriodic();
            for (long id = 3; id <= 4; id++) {
                next.advance(100);
                next.ackAll(id);
            }
            assertThat(exists(late)).as("adopting: %s", adopting).isEqualTo(adopting);
            assertThat(exists(own)).isTrue();
        }
    }
}

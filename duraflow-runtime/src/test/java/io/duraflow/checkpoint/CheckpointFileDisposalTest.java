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
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of {@link CheckpointFileDisposal}, over a real local directory. */
class CheckpointFileDisposalTest {
    private static final String JOB = "job-1";

    @TempDir
    Path tmp;

    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private final CoordinatorHarness.ManualIo io = new CoordinatorHarness.ManualIo();
    private CheckpointDirectories directories;
    private CheckpointFileDisposal disposal;

    @BeforeEach
    void setUp() {
        directories = CheckpointDirectories.of(FsPath.of(tmp), JOB);
        disposal = new CheckpointFileDisposal(directories, new CheckpointFileCleaner(JOB, fs, directories, io));
    }

    private FsPath write(FsPath file) throws IOException {
        fs.writeFile(file, new byte[3], WriteMode.OVERWRITE);
        return file;
    }

    private static boolean exists(FsPath path) {
        return Files.exists(Path.of(path.toString()));
    }

    private static SnapshotFiles uploaded(FsPath... files) {
        return new SnapshotFiles(Set.of(files), Set.of(), 0);
    }

    private CompletedCheckpoint completed(long checkpointId) {
        return new CompletedCheckpoint(JOB, checkpointId, 0, 0, 8, CheckpointKind.CHECKPOINT, Map.of(),
                directories.metadata(checkpointId));
    }

    @Test
    void rule1And2ASubsumedCheckpointTakesItsDirectoryAndOnlyTheFilesNoRetainedOneUses() throws IOException {
        // Outside chk-1, so only the release of checkpoint 1 can delete it, not the directory's deletion.
        FsPath own = write(directories.shared().resolve("own"));
        FsPath shared = write(directories.shared().resolve("shared"));
        FsPath taskOwned = write(directories.taskOwned().resolve("merged"));
        disposal.register(1, Set.of(own, shared, taskOwned));
        disposal.register(2, Set.of(shared));

        disposal.onCheckpointCompleted(2, List.of(completed(1)), Set.of(2L));
        io.runAll();

        assertThat(exists(own)).isFalse();
        assertThat(exists(directories.checkpoint(1))).isFalse();
        assertThat(exists(shared)).isTrue();
        assertThat(exists(taskOwned)).isTrue();
    }

    @Test
    void rule2And5AnAbortTakesItsDirectoryAndACompletionTheLeftoverOlderDirectories() throws IOException {
        FsPath aborted = write(directories.checkpoint(3).resolve("state"));
        FsPath leftover = write(directories.checkpoint(1).resolve("late"));
        FsPath live = write(directories.checkpoint(2).resolve("state"));
        disposal.register(3, Set.of(aborted));

        disposal.onAborted(3, directories.checkpoint(3));
        disposal.onCheckpointCompleted(4, List.of(), Set.of(2L, 4L));
        io.runAll();

        assertThat(exists(directories.checkpoint(3))).isFalse();
        assertThat(exists(leftover)).isFalse();
        assertThat(exists(live)).isTrue();
    }

    @Test
    void rule3ACompletedSavepointLosesNoFile() throws IOException {
        FsPath savepointFile = write(FsPath.of(tmp.resolve("savepoints/savepoint-job-1-1/state")));
        disposal.register(1, Set.of(savepointFile));

        disposal.onSavepointCompleted(1);

        assertThat(io.queued()).isZero();
        assertThat(exists(savepointFile)).isTrue();
    }

    @Test
    void rule4ADiscardedSnapshotLosesOnlyFilesNoCheckpointUses() throws IOException {
        FsPath used = write(directories.shared().resolve("used"));
        FsPath unused = write(directories.checkpoint(5).resolve("unused"));
        FsPath taskOwned = write(directories.taskOwned().resolve("merged"));
        disposal.register(5, Set.of(used));

        disposal.discardUnreferenced(uploaded(used, unused, taskOwned));
        io.runAll();

        assertThat(exists(used)).isTrue();
        assertThat(exists(unused)).isFalse();
        assertThat(exists(taskOwned)).isTrue();
    }

    @Test
    void rule5OnlyADirectoryThisCoordinatorDrewAndNoLongerUsesIsDeadWhenALateTaskRecreatesIt() throws IOException {
        FsPath ended = write(directories.checkpoint(2).resolve("late"));
        FsPath live = write(directories.checkpoint(3).resolve("late"));
        FsPath notYetDrawn = write(directories.checkpoint(9).resolve("late"));

        disposal.discardDeadDirectory(2, 5, Set.of(3L));
        disposal.discardDeadDirectory(3, 5, Set.of(3L));
        disposal.discardDeadDirectory(9, 5, Set.of(3L));
        io.runAll();

        assertThat(exists(ended)).isFalse();
        assertThat(exists(live)).isTrue();
        assertThat(exists(notYetDrawn)).isTrue();
    }

    @Test
    void restoreMakesTheRetainedCheckpointsUseTheirFiles() throws IOException {
        FsPath stale = write(directories.shared().resolve("stale"));
        disposal.register(1, Set.of(stale));

        disposal.restore(List.of(completed(1)));
        disposal.discardUnreferenced(uploaded(stale));
        io.runAll();

        assertThat(exists(stale)).isFalse();
    }

    @Test
    void rule6ADiscardedSnapshotNeverLosesTheSharedFilesItReusesNorFilesOutsideTheJobsDirectory() throws IOException {
        FsPath reused = write(directories.shared().resolve("reused-but-unknown"));
        FsPath restoredSavepointFile = write(FsPath.of(tmp.resolve("savepoints/savepoint-old-3/state")));
        FsPath own = write(directories.checkpoint(7).resolve("own"));

        disposal.discardUnreferenced(new SnapshotFiles(Set.of(own, restoredSavepointFile), Set.of(reused), 0));
        io.runAll();

        assertThat(exists(own)).isFalse();
        assertThat(exists(reused)).isTrue();
        assertThat(exists(restoredSavepointFile)).isTrue();
    }

    @Test
    void rule7AfterARestoreTheUnreferencedSharedFilesAndTheDirectoriesOfDeadCheckpointsGo() throws IOException {
        FsPath retainedShared = write(directories.shared().resolve("b1-000001.sst"));
        FsPath finalizingShared = write(directories.shared().resolve("b1-000002.sst"));
        FsPath orphanShared = write(directories.shared().resolve("b1-000003.sst"));
        FsPath finalizing = write(directories.checkpoint(4).resolve("state"));
        FsPath dead = write(directories.checkpoint(5).resolve("state"));
        disposal.register(4, Set.of(finalizingShared, finalizing));
        disposal.restore(List.of(completed(3)));
        disposal.register(3, Set.of(retainedShared));

        disposal.deleteOrphansAfterRestore(List.of(retainedShared, finalizingShared, orphanShared), List.of(),
                Set.of(3L, 4L), true);
        io.runAll();

        assertThat(exists(retainedShared)).isTrue();
        assertThat(exists(finalizingShared)).isTrue();
        assertThat(exists(finalizing)).isTrue();
        assertThat(exists(orphanShared)).isFalse();
        assertThat(exists(directories.checkpoint(5))).isFalse();
        assertThat(exists(dead)).isFalse();
    }

    // ------------------------------------------------------------------ checkpoint file merging (rules 7 and 8)

    private static final CheckpointTask TASK = new CheckpointTask(0, 0, 0);

    private FsPath subtaskDirectory() {
        return directories.sharedFileMergingDirectory("subtask-0-1-v0");
    }

    private FsPath runDirectory(String run) {
        return directories.taskOwnedFileMergingDirectory("tm-1-" + run);
    }

    /** A task's acknowledgement of {@code checkpointId}: the merged files it wrote into, the directories it names. */
    private void acknowledge(long checkpointId, Set<FsPath> uploaded, FsPath... named) {
        assertThat(disposal.registerAcknowledged(checkpointId, TASK, new SnapshotFiles(uploaded, Set.of(), 0,
                Set.of(named)))).isEmpty();
    }

    private CompletedCheckpoint completed(long checkpointId, FsPath... named) {
        return new CompletedCheckpoint(JOB, checkpointId, 0, 0, 8, CheckpointKind.CHECKPOINT, Map.of(),
                directories.metadata(checkpointId), Set.of(named));
    }

    @Test
    void rule8AFileMergingDirectoryNamedByAPendingCheckpointThatAbortsStays() throws IOException {
        FsPath merged = write(runDirectory("run1").resolve("merged-1"));
        acknowledge(2, Set.of(merged), runDirectory("run1"), subtaskDirectory());

        disposal.onAborted(2, directories.checkpoint(2));
        io.runAll();

        assertThat(exists(merged)).as("its writer may live on; the TaskManager deletes what it wrote").isTrue();
        assertThat(exists(runDirectory("run1"))).isTrue();
        assertThat(disposal.registry().isNamed(runDirectory("run1"))).isFalse();
    }

    @Test
    void rule8AFileMergingDirectoryGoesWholeWhenTheLastCompletedCheckpointThatNamesItIsSubsumed() throws IOException {
        FsPath merged = write(runDirectory("run1").resolve("merged-1"));
        FsPath torn = write(runDirectory("run1").resolve("torn-never-reported"));
        FsPath next = write(runDirectory("run2").resolve("merged-2"));
        acknowledge(1, Set.of(merged), runDirectory("run1"));
        acknowledge(2, Set.of(merged), runDirectory("run1"));
        acknowledge(3, Set.of(next), runDirectory("run2"));

        disposal.onCheckpointCompleted(2, List.of(completed(1, runDirectory("run1"))), Set.of(2L, 3L));
        io.runAll();
        assertThat(exists(merged)).as("checkpoint 2 names its directory").isTrue();

        disposal.onCheckpointCompleted(3, List.of(completed(2, runDirectory("run1"))), Set.of(3L));
        io.runAll();
        assertThat(exists(runDirectory("run1"))).isFalse();
        assertThat(exists(torn)).isFalse();
        assertThat(exists(next)).isTrue();
    }

    @Test
    void rule1AMergedFileIsNeverDeletedOnItsOwnWhileItsWriterMayLive() throws IOException {
        FsPath merged = write(subtaskDirectory().resolve("merged-1"));
        acknowledge(1, Set.of(merged), subtaskDirectory());
        acknowledge(2, Set.of(), subtaskDirectory()); // the next acknowledgement no longer refers to it

        disposal.onCheckpointCompleted(2, List.of(completed(1, subtaskDirectory())), Set.of(2L));
        disposal.discardUnreferenced(new SnapshotFiles(Set.of(merged), Set.of(), 0));
        io.runAll();

        assertThat(exists(merged)).as("the TaskManager deletes it").isTrue();
    }

    @Test
    void rule7AfterARestoreAdoptedFilesGoWhenUnreferencedAndOnlyEmptyUnnamedDirectoriesGo() throws IOException {
        FsPath retainedFile = write(subtaskDirectory().resolve("merged-retained"));
        FsPath orphanBeside = write(subtaskDirectory().resolve("merged-orphan"));
        FsPath orphanAlone = write(runDirectory("run1").resolve("merged-1"));
        FsPath otherSubtask = directories.sharedFileMergingDirectory("subtask-0-1-v1");
        FsPath orphanOfOtherSubtask = write(otherSubtask.resolve("merged-old"));
        disposal.restore(List.of(completed(3, subtaskDirectory())));
        disposal.register(3, Set.of(retainedFile));
        List<FsPath> listed = List.of(retainedFile, orphanBeside, orphanAlone, orphanOfOtherSubtask);
        // After the listing, the restored run of that subtask writes into its directory again.
        FsPath unlisted = write(otherSubtask.resolve("merged-new"));

        disposal.deleteOrphansAfterRestore(listed, List.of(subtaskDirectory(), runDirectory("run1"), otherSubtask),
                Set.of(3L), false);
        io.runAll();

        assertThat(exists(retainedFile)).isTrue();
        assertThat(exists(orphanBeside)).isFalse();
        assertThat(exists(subtaskDirectory())).as("named by checkpoint 3").isTrue();
        assertThat(exists(orphanAlone)).isFalse();
        assertThat(exists(runDirectory("run1"))).as("empty and unnamed").isFalse();
        assertThat(exists(orphanOfOtherSubtask)).isFalse();
        assertThat(exists(unlisted)).isTrue();
        assertThat(exists(otherSubtask)).as("unnamed, but not empty").isTrue();

        // The restored run names the subtask's directory too; the adopted file goes with checkpoint 3.
        acknowledge(4, Set.of(), subtaskDirectory());
        disposal.onCheckpointCompleted(4, List.of(completed(3, subtaskDirectory())), Set.of(4L));
        io.runAll();
        assertThat(exists(retainedFile)).isFalse();
        assertThat(exists(subtaskDirectory())).isTrue();
    }

    @Test
    void rule7AfterARestoreAnEmptyUnnamedPrivateDirectoryGoesButAnEmptySharedOneStaysForTheRestoredRun()
            throws IOException {
        FsPath emptyRun = runDirectory("run0");
        FsPath emptyShared = directories.sharedFileMergingDirectory("subtask-1-2-v0");
        fs.mkdirs(emptyRun);
        fs.mkdirs(emptyShared);
        disposal.restore(List.of());

        disposal.deleteOrphansAfterRestore(List.of(), List.of(emptyRun, emptyShared), Set.of(), false);
        io.runAll();

        assertThat(exists(emptyRun)).isFalse();
        assertThat(exists(emptyShared)).as("its subtask of the restored run writes here again").isTrue();
    }

    @Test
    void rule8TheDirectoryNamesOfTheMetadataSurviveARestore() throws IOException {
        FsPath merged = write(runDirectory("run1").resolve("merged-1"));
        CompletedCheckpoint written = completed(5, runDirectory("run1"), subtaskDirectory());
        CheckpointMetadataFormat.write(fs, written);
        CompletedCheckpoint read = CheckpointMetadataFormat.read(fs, directories.metadata(5));
        assertThat(read.fileMergingDirectories()).containsExactlyInAnyOrder(runDirectory("run1"), subtaskDirectory());

        disposal.restore(List.of(read));
        assertThat(disposal.registry().isNamed(runDirectory("run1"))).isTrue();
        disposal.deleteOrphansAfterRestore(List.of(merged), List.of(runDirectory("run1")), Set.of(5L), false);
        io.runAll();
        assertThat(exists(merged)).as("adopted and unreferenced").isFalse();
        assertThat(exists(runDirectory("run1"))).as("empty, but named").isTrue();

        disposal.onCheckpointCompleted(6, List.of(read), Set.of(6L));
        io.runAll();
        assertThat(exists(runDirectory("run1"))).isFalse();
    }

    @Test
    void rule2AClaimedCheckpointOfAnotherJobLeavesNoEmptyDirectoryBehindOnceItsFilesAreGone() throws IOException {
        CheckpointDirectories other = CheckpointDirectories.of(directories.jobDirectory().parent(), "old-job");
        FsPath mergedA = write(other.sharedFileMergingDirectory("subtask-0-2-v1").resolve("a"));
        FsPath mergedB = write(other.taskOwnedFileMergingDirectory("tm-1-r1").resolve("b"));
        FsPath metadata = write(other.metadata(7));
        CompletedCheckpoint claimed = new CompletedCheckpoint("old-job", 7, 0, 0, 8, CheckpointKind.CHECKPOINT,
                Map.of("op", new OperatorCheckpointState("op", 1, null, Map.of(0, new io.duraflow.state.OperatorSubtaskState(
                        List.of(), List.of(
                                new io.duraflow.state.OperatorStateHandle(Map.of(),
                                        new io.duraflow.state.FileSegmentHandle(mergedA, 8, 3)),
                                new io.duraflow.state.OperatorStateHandle(Map.of(),
                                        new io.duraflow.state.FileSegmentHandle(mergedB, 8, 3))))))),
                metadata);
        disposal.restore(List.of(claimed));
        disposal.claim(claimed);
        // The job's first checkpoint still uses mergedA (a reused incremental file).
        disposal.register(8, Set.of(mergedA));

        disposal.onCheckpointCompleted(8, List.of(claimed), Set.of(8L));
        io.runAll();
        assertThat(exists(mergedB)).isFalse();
        assertThat(exists(other.taskOwned())).as("emptied").isFalse();
        assertThat(exists(mergedA)).isTrue();
        assertThat(exists(other.jobDirectory())).as("still holds a file checkpoint 8 uses").isTrue();

        disposal.onCheckpointCompleted(9, List.of(completed(8)), Set.of(9L));
        io.runAll();
        assertThat(exists(mergedA)).isFalse();
        assertThat(exists(other.jobDirectory())).as("nothing of the claimed job is left").isFalse();
    }
}

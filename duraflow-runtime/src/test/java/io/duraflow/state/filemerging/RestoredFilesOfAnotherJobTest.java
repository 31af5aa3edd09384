package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.HEADER;
import static io.duraflow.state.filemerging.MergingFixture.TRAILER;
import static io.duraflow.state.filemerging.MergingFixture.across;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static io.duraflow.state.storage.CheckpointedStateScope.SHARED;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileMergingSnapshotManager} rule 4 for a job restored (with {@code --claim}) from another
 * job's merged checkpoint: the other job's files are counted by space control from the restore on,
 * never reused, and forgotten (not deleted: the JobManager claimed them) once the restored
 * checkpoint is no longer retained.
 */
class RestoredFilesOfAnotherJobTest {
    @TempDir
    Path tmp;

    @Test
    void anotherJobsMergedFilesAreCountedButNeverReusedAndForgottenOnceTheRestoredCheckpointGoes()
            throws IOException {
        MergingFixture fixture = new MergingFixture(tmp);
        SubtaskKey subtask = new SubtaskKey(1, 0, 1);
        // The other job "old" wrote two segments of checkpoint 5 into one merged file.
        CheckpointDirectories old = CheckpointDirectories.of(FsPath.of(tmp), "old");
        List<StreamStateHandle> restored;
        try (FileMergingSnapshotManager previous = new FileMergingSnapshotManager("old", "tm", "r0", fixture.fs, old,
                across(), Runnable::run)) {
            previous.register(subtask);
            restored = List.of(write(previous, subtask, 5, SHARED, bytes(1000, 1)),
                    write(previous, subtask, 5, SHARED, bytes(1000, 2)));
            previous.acknowledging(subtask, 5);
            previous.checkpointCompleted(5, 5);
        }
        FsPath file = fileOf(restored.get(0));
        assertThat(old.fileMergingDirectoryOf(file)).as("a merged file of the old job").isNotNull();

        FileMergingSnapshotManager manager = fixture.manager("run1", across(), subtask);
        try {
            manager.restore(subtask, 5, restored);
            assertThat(manager.spaceUsage()).as("counted from the restore on").isEqualTo(new SpaceUsage(
                    HEADER + 2 * (1000 + TRAILER), 2000, 1, 0, 0, 0));
            assertThat(manager.streamFactory(subtask, 6).tryReuse(restored.get(0)))
                    .as("the next checkpoint writes the other job's state again").isFalse();

            manager.acknowledging(subtask, 6);
            manager.checkpointCompleted(6, 6);
            assertThat(manager.spaceUsage().files()).as("forgotten once checkpoint 5 is not retained").isZero();
            assertThat(fixture.exists(file)).as("never deleted by the TaskManager: the JobManager claimed it")
                    .isTrue();
        } finally {
            manager.close();
        }
        assertThat(fixture.exists(file)).isTrue();
    }
}

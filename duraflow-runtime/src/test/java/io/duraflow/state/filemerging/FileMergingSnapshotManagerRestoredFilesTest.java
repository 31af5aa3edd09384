package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.within;
import static io.duraflow.state.filemerging.SnapshotManagerHarness.SEGMENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 4 of {@link FileMergingSnapshotManager} (numbered as in
 * docs/design/checkpoint-file-merging.md), on the local file system: segments of restored files are
 * counted and reusable while they live, never deleted, and forgotten once dead.
 */
class FileMergingSnapshotManagerRestoredFilesTest {
    @TempDir
    Path tmp;

    private SnapshotManagerHarness harness;

    @BeforeEach
    void setUp() {
        harness = new SnapshotManagerHarness(tmp);
    }

    @AfterEach
    void closeManagers() {
        harness.close();
    }

    @Test
    void rule4RestoredSegmentsAreCountedAndReusableButNeverDeletedAndForgottenOnceDead() throws IOException {
        harness.start("run1", within());
        StreamStateHandle kept = harness.shared(1, 1);
        StreamStateHandle dropped = harness.shared(1, 2);
        StreamStateHandle operatorState = harness.exclusive(harness.subtask, 1, 3);
        StreamStateHandle otherOperatorState = harness.exclusive(harness.other, 1, 4);
        harness.complete(1, 1);
        harness.manager.acknowledging(harness.other, 1);
        harness.manager.close();
        List<FsPath> restoredFiles = harness.fixture.filesOnDisk();
        assertThat(restoredFiles).containsExactlyInAnyOrder(fileOf(kept), fileOf(operatorState));

        // The job restores checkpoint 1 into a new run: both subtasks restore their state.
        harness.start("run2", within());
        harness.manager.restore(harness.subtask, 1, List.of(kept, dropped, operatorState,
                new InlineStateHandle(new byte[] {1}),
                new FileSegmentHandle(harness.fixture.directories.checkpoint(1).resolve("not-merged"), 0, 5)));
        harness.manager.restore(harness.other, 1, List.of(otherOperatorState));
        long restoredBytes = restoredFiles.stream().mapToLong(harness.fixture::size).sum();
        assertThat(harness.manager.spaceUsage()).isEqualTo(new SpaceUsage(restoredBytes,
                4L * SEGMENT, 2, 0));

        assertThat(harness.reuse(2, kept)).isTrue();
        StreamStateHandle next = harness.shared(2, 5);
        assertThat(fileOf(next)).as("a new run never appends to a restored file").isNotEqualTo(fileOf(kept));
        assertThat(fileOf(next).parent()).isEqualTo(fileOf(kept).parent());
        harness.manager.acknowledging(harness.other, 2);
        harness.complete(2, 2);
        assertThat(harness.manager.spaceUsage().files()).as("the restored private file is forgotten").isEqualTo(2);
        assertThat(harness.liveBytes()).isEqualTo(2L * SEGMENT);

        harness.manager.acknowledging(harness.other, 3);
        harness.complete(3, 3);
        assertThat(harness.manager.spaceUsage().files()).isZero();
        assertThat(harness.exists(next)).isFalse();
        assertThat(harness.fixture.filesOnDisk()).as("the JobManager adopted the restored files")
                .containsExactlyInAnyOrderElementsOf(restoredFiles);
        harness.fixture.assertReadsBack(kept, bytes(SEGMENT, 1));
    }

    @Test
    void rule4ARestoredSegmentThatDiedIsNeverReusedAgain() throws IOException {
        harness.start("run1", within());
        StreamStateHandle restored = harness.shared(1, 1);
        harness.complete(1, 1);
        harness.manager.close();

        harness.start("run2", within());
        harness.manager.restore(harness.subtask, 1, List.of(restored));
        harness.complete(2, 2);

        assertThat(harness.reuse(3, restored)).isFalse();
        assertThat(harness.exists(restored)).isTrue();
    }
}

package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.HEADER;
import static io.duraflow.state.filemerging.MergingFixture.TRAILER;
import static io.duraflow.state.filemerging.MergingFixture.across;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.settings;
import static io.duraflow.state.filemerging.SnapshotManagerHarness.FOUR_SEGMENTS;
import static io.duraflow.state.filemerging.SnapshotManagerHarness.SEGMENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 6 of {@link FileMergingSnapshotManager} (numbered as in
 * docs/design/checkpoint-file-merging.md), on the local file system: space control picks the most
 * wasteful files within the amplification limit, and a checkpoint that would leave its open file
 * wasteful takes a new one. Segments are 1000 bytes unless said otherwise, so a segment takes 1016
 * bytes of its file.
 */
class FileMergingSnapshotManagerSpaceControlTest {
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

    /**
     * Twelve segments in three full files; two completions later one segment of the first file is
     * live, two of each other: 12216 bytes for 5000 live (2.4x, limit 2).
     */
    @Test
    void rule6SpaceControlPicksTheMostWastefulFilesAndTheyGoOnceTheirSegmentsDie() throws IOException {
        harness.start("run1", settings(true, FOUR_SEGMENTS, false, 2.0));
        List<StreamStateHandle> written = harness.shared(1, 12, 1);
        harness.complete(1, 1);
        List<StreamStateHandle> kept = List.of(written.get(0), written.get(4), written.get(5), written.get(8),
                written.get(9));
        harness.reuseAll(2, kept);
        harness.complete(2, 2);

        assertThat(harness.manager.spaceUsage().physicalBytes()).isEqualTo(3 * FOUR_SEGMENTS);
        assertThat(harness.reuse(3, written.get(0))).as("in the most wasteful file").isFalse();
        harness.reuseAll(3, kept.subList(1, 5));
        StreamStateHandle rewritten = harness.shared(3, 1);
        harness.complete(3, 3);

        assertThat(harness.exists(written.get(0))).isFalse();
        assertThat(harness.exists(written.get(4))).isTrue();
        assertThat(harness.manager.spaceUsage().physicalBytes())
                .isEqualTo(2 * FOUR_SEGMENTS + HEADER + SEGMENT + TRAILER);
        assertThat(harness.manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        harness.fixture.assertReadsBack(rewritten, bytes(SEGMENT, 1));
    }

    @Test
    void rule6AnOpenFilePickedBySpaceControlIsClosedAndNotReusable() throws IOException {
        harness.start("run1", across());
        List<StreamStateHandle> first = harness.shared(1, 4, 1);
        harness.complete(1, 1);
        harness.reuseAll(2, first);
        StreamStateHandle second = harness.shared(2, 5);
        assertThat(fileOf(second)).isEqualTo(fileOf(first.get(0)));
        harness.complete(2, 2);
        // Checkpoint 3 writes nothing here and refers to two of the file's five segments.
        harness.reuseAll(3, List.of(first.get(0), second));

        harness.complete(3, 3); // 5088 bytes for 2000 live

        assertThat(harness.manager.spaceUsage().openFiles()).isZero();
        assertThat(harness.reuse(4, first.get(0))).isFalse();
        assertThat(harness.reuse(4, second)).isFalse();
        StreamStateHandle rewritten = harness.shared(4, 1);
        StreamStateHandle rewrittenSecond = harness.shared(4, 5);
        assertThat(fileOf(rewritten)).isNotEqualTo(fileOf(second));
        harness.complete(4, 4);
        assertThat(harness.exists(second)).isFalse();
        assertThat(harness.manager.spaceUsage()).isEqualTo(new SpaceUsage(
                HEADER + 2 * (SEGMENT + TRAILER), 2 * SEGMENT, 1, 1, 1, 0));
        harness.fixture.assertReadsBack(rewrittenSecond, bytes(SEGMENT, 5));
    }

    /**
     * After a compaction a checkpoint refers to little of the open file: its new segments go to a
     * new file, and the old one goes at the completion, so space stays within the limit without
     * writing any live segment again.
     */
    @Test
    void rule6ACheckpointThatWouldLeaveItsOpenFileWastefulTakesANewOne() throws IOException {
        harness.start("run1", across());
        List<StreamStateHandle> first = harness.shared(1, 4, 1);
        harness.complete(1, 1);
        harness.reuseAll(2, first.subList(0, 2)); // 2000 of 4064 segment bytes: above 2.0

        StreamStateHandle compacted = harness.shared(2, 5);

        assertThat(fileOf(compacted)).isNotEqualTo(fileOf(first.get(0)));
        assertThat(harness.manager.spaceUsage().openFiles()).isEqualTo(1);
        harness.complete(2, 2);
        assertThat(harness.manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        harness.reuseAll(3, List.of(first.get(0), first.get(1), compacted));
        StreamStateHandle third = harness.shared(3, 6);
        assertThat(fileOf(third)).isEqualTo(fileOf(compacted));
        harness.complete(3, 3);
        harness.reuseAll(4, List.of(compacted, third));
        harness.shared(4, 7);
        harness.complete(4, 4);

        assertThat(harness.exists(first.get(0))).as("no checkpoint refers to the old file any more").isFalse();
        assertThat(harness.manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        harness.fixture.assertReadsBack(compacted, bytes(SEGMENT, 5));
    }

    /** A checkpoint that keeps referring to most of its open file appends to it: merging across checkpoints stays. */
    @Test
    void rule6ACheckpointThatKeepsMostOfItsOpenFileAppendsToIt() throws IOException {
        harness.start("run1", across());
        List<StreamStateHandle> first = harness.shared(1, 4, 1);
        harness.complete(1, 1);
        harness.reuseAll(2, first.subList(0, 3)); // 3000 of 4064 segment bytes: within 2.0

        StreamStateHandle second = harness.shared(2, 5);

        assertThat(fileOf(second)).isEqualTo(fileOf(first.get(0)));
        StreamStateHandle more = harness.shared(2, 6);
        assertThat(fileOf(more)).as("decided once per checkpoint").isEqualTo(fileOf(second));
    }

    /**
     * A wasteful open file stays when the subtask's files together are within the limit: a new file
     * would not lower the bytes on disk, only add a file.
     */
    @Test
    void rule6AnOpenFileStaysWhenTheSubtasksFilesAreWithinTheLimit() throws IOException {
        harness.start("run1", settings(true, 6 * (SEGMENT + TRAILER) + HEADER, false, 2.0));
        List<StreamStateHandle> big = harness.shared(1, 6, 1); // fills the first file, which closes
        StreamStateHandle open = harness.shared(1, 7);
        StreamStateHandle dying = harness.shared(1, 8);
        harness.complete(1, 1);
        assertThat(fileOf(open)).isNotEqualTo(fileOf(big.get(0)));
        harness.reuseAll(2, big);

        StreamStateHandle second = harness.shared(2, 9);

        assertThat(fileOf(second)).isEqualTo(fileOf(open));
        assertThat(harness.exists(dying)).isTrue();
    }

    @Test
    void rule6AnAmplificationLimitBelowOneControlsNothing() throws IOException {
        harness.start("run1", settings(true, 1 << 20, false, 0.99));
        List<StreamStateHandle> first = harness.shared(1, 4, 1);
        harness.complete(1, 1);
        assertThat(harness.reuse(2, first.get(0))).isTrue();
        harness.shared(2, 5);

        harness.complete(2, 2);

        assertThat(harness.manager.spaceUsage().amplification()).isGreaterThan(2.5);
        assertThat(harness.manager.spaceUsage().openFiles()).isEqualTo(1);
        assertThat(harness.reuse(3, first.get(0))).isTrue();
    }

    /**
     * With two checkpoints retained, a picked file lives on for one more completion while its
     * segments are written again elsewhere: the bytes it will free count, so no other file is
     * picked while they bring the total under the limit.
     */
    @Test
    void rule6FilesAlreadyPickedCountAsFreedSoNoMoreArePicked() throws IOException {
        harness.start("run1", settings(true, FOUR_SEGMENTS, false, 2.0));
        List<StreamStateHandle> written = harness.shared(1, 12, 1);
        harness.complete(1, 1);
        List<StreamStateHandle> kept = List.of(written.get(0), written.get(4), written.get(5), written.get(8),
                written.get(9));
        harness.reuseAll(2, kept);
        harness.complete(2, 1);
        harness.reuseAll(3, kept);
        harness.complete(3, 2); // 12216 bytes for 5000 live: the first file is picked

        assertThat(harness.reuse(4, written.get(0))).isFalse();
        harness.reuseAll(4, kept.subList(1, 5));
        StreamStateHandle rewritten = harness.shared(4, 1);
        harness.complete(4, 3); // 13240 bytes for 6000 live, but the first file will free 3072 of them

        harness.reuseAll(5, kept.subList(1, 5));
        assertThat(harness.reuse(5, rewritten)).isTrue();
        harness.complete(5, 4);
        assertThat(harness.exists(written.get(0))).isFalse();
        assertThat(harness.manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
    }
}

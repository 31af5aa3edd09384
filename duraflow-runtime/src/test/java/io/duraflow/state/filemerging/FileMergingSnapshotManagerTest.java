package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.HEADER;
import static io.duraflow.state.filemerging.MergingFixture.TRAILER;
import static io.duraflow.state.filemerging.MergingFixture.across;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.segment;
import static io.duraflow.state.filemerging.MergingFixture.settings;
import static io.duraflow.state.filemerging.MergingFixture.within;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static io.duraflow.state.storage.CheckpointedStateScope.EXCLUSIVE;
import static io.duraflow.state.storage.CheckpointedStateScope.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of {@link FileMergingSnapshotManager} (numbered as in
 * docs/design/checkpoint-file-merging.md), on the local file system. Segments are 1000 bytes unless
 * said otherwise, so a segment takes 1016 bytes of its file.
 */
class FileMergingSnapshotManagerTest {
    private static final int SEGMENT = 1000;
    /** A file of four segments. */
    private static final long FOUR_SEGMENTS = HEADER + 4L * (SEGMENT + TRAILER);

    @TempDir
    Path tmp;

    private MergingFixture fixture;
    private final SubtaskKey subtask = new SubtaskKey(1, 0, 2);
    private final SubtaskKey other = new SubtaskKey(1, 1, 2);
    private final List<FileMergingSnapshotManager> managers = new ArrayList<>();
    private FileMergingSnapshotManager manager;

    @BeforeEach
    void setUp() {
        fixture = new MergingFixture(tmp);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(FileMergingSnapshotManager::close);
    }

    private FileMergingSnapshotManager start(String run, FileMergingSettings settings) {
        manager = fixture.manager(run, settings, subtask, other);
        managers.add(manager);
        return manager;
    }

    /** A {@link #SEGMENT}-byte stream of {@code subtask}'s incremental state for checkpoint {@code checkpointId}. */
    private StreamStateHandle shared(long checkpointId, int seed) throws IOException {
        return write(manager, subtask, checkpointId, SHARED, bytes(SEGMENT, seed));
    }

    private StreamStateHandle exclusive(SubtaskKey key, long checkpointId, int seed) throws IOException {
        return write(manager, key, checkpointId, EXCLUSIVE, bytes(SEGMENT, seed));
    }

    private List<StreamStateHandle> shared(long checkpointId, int count, int firstSeed) throws IOException {
        List<StreamStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            handles.add(shared(checkpointId, firstSeed + i));
        }
        return handles;
    }

    /** Checkpoint {@code checkpointId} of {@code subtask} refers to {@code handle} again, if the manager lets it. */
    private boolean reuse(long checkpointId, StreamStateHandle handle) {
        return manager.streamFactory(subtask, checkpointId).tryReuse(handle);
    }

    private void reuseAll(long checkpointId, List<StreamStateHandle> handles) {
        for (StreamStateHandle handle : handles) {
            assertThat(reuse(checkpointId, handle)).as("reuse of %s by %d", handle, checkpointId).isTrue();
        }
    }

    /** {@code subtask} acknowledged checkpoint {@code checkpointId}, which then completed. */
    private void complete(long checkpointId, long lowestRetainedId) {
        manager.acknowledging(subtask, checkpointId);
        manager.checkpointCompleted(checkpointId, lowestRetainedId);
    }

    private long liveBytes() {
        return manager.spaceUsage().liveBytes();
    }

    private boolean exists(StreamStateHandle handle) {
        return fixture.exists(fileOf(handle));
    }

    // ------------------------------------------------------------------ rule 1: segments

    @Test
    void rule1ASegmentLivesUntilACompletionsLowestRetainedIdPassesItsLastUse() throws IOException {
        start("run1", within());
        StreamStateHandle first = shared(1, 1);

        complete(1, 1);
        assertThat(liveBytes()).isEqualTo(SEGMENT);
        complete(2, 1); // two retained: 1 and 2
        assertThat(liveBytes()).isEqualTo(SEGMENT);
        fixture.assertReadsBack(first, bytes(SEGMENT, 1));

        complete(3, 2);
        assertThat(liveBytes()).isZero();
        assertThat(exists(first)).isFalse();
        assertThat(manager.spaceUsage().files()).isZero();
    }

    @Test
    void rule1ALostNotificationIsCaughtUpByTheNext() throws IOException {
        start("run1", within());
        StreamStateHandle first = shared(1, 1);
        manager.acknowledging(subtask, 1);
        StreamStateHandle second = shared(2, 2);
        manager.acknowledging(subtask, 2);
        // The notifications of 1 and 2 are lost.

        complete(3, 3);

        assertThat(liveBytes()).isZero();
        assertThat(exists(first)).isFalse();
        assertThat(exists(second)).isFalse();
    }

    @Test
    void rule1And3AReuseMovesTheWatermark() throws IOException {
        start("run1", within());
        StreamStateHandle first = shared(1, 1);
        complete(1, 1);

        assertThat(reuse(2, first)).isTrue();
        StreamStateHandle second = shared(2, 2);
        complete(2, 2);
        assertThat(liveBytes()).isEqualTo(2 * SEGMENT);
        fixture.assertReadsBack(first, bytes(SEGMENT, 1));

        complete(3, 3);
        assertThat(liveBytes()).isZero();
        assertThat(exists(first)).isFalse();
        assertThat(exists(second)).isFalse();
    }

    @Test
    void rule1AnAbortKillsOnlyTheSegmentsCreatedForItAndNotReused() throws IOException {
        start("run1", within());
        StreamStateHandle first = shared(1, 1);
        complete(1, 1);
        assertThat(reuse(2, first)).isTrue();
        StreamStateHandle second = shared(2, 2);
        StreamStateHandle third = shared(3, 3);
        assertThat(reuse(4, third)).as("checkpoint 4 started before 3 was aborted").isTrue();

        manager.checkpointAborted(2);
        manager.checkpointAborted(3);

        assertThat(exists(second)).isFalse();
        assertThat(liveBytes()).isEqualTo(2 * SEGMENT);
        fixture.assertReadsBack(first, bytes(SEGMENT, 1));
        fixture.assertReadsBack(third, bytes(SEGMENT, 3));
        assertThat(reuse(5, second)).isFalse();
    }

    @Test
    void rule1ASegmentWrittenAfterItsCheckpointWasAbortedOrSubsumedIsDeadAtOnce() throws IOException {
        start("run1", within());
        manager.checkpointAborted(5);
        StreamStateHandle late = shared(5, 5);

        assertThat(exists(late)).isFalse();
        assertThat(manager.spaceUsage()).isEqualTo(new SpaceUsage(0, 0, 0, 0));

        complete(7, 7);
        StreamStateHandle later = shared(6, 6);
        assertThat(exists(later)).isFalse();
        assertThat(liveBytes()).isZero();
    }

    @Test
    void rule1AcrossCheckpointsALateSegmentIsDeadAtOnceAndItsOpenFileGoesWhenTheNextCheckpointWrites()
            throws IOException {
        start("run1", across());
        manager.checkpointAborted(5);
        StreamStateHandle late = shared(5, 5);

        assertThat(liveBytes()).isZero();
        assertThat(exists(late)).as("open: it may take the next checkpoint's segments").isTrue();
        StreamStateHandle next = shared(6, 6);
        assertThat(fileOf(next)).as("rule 6: the open file holds nothing live").isNotEqualTo(fileOf(late));
        assertThat(exists(late)).isFalse();
        assertThat(liveBytes()).isEqualTo(SEGMENT);
    }

    @Test
    void rule1OlderAndRepeatedNotificationsChangeNothing() throws IOException {
        start("run1", within());
        StreamStateHandle third = shared(3, 3);
        complete(3, 3);
        complete(3, 3);
        manager.checkpointCompleted(2, 2);
        manager.checkpointAborted(2);

        assertThat(liveBytes()).isEqualTo(SEGMENT);
        fixture.assertReadsBack(third, bytes(SEGMENT, 3));
    }

    // ------------------------------------------------------------------ rule 2: files

    @Test
    void rule2AnOpenFileOutlivesItsSegmentsAndGoesOnceClosedWithoutLiveSegments() throws IOException {
        start("run1", settings(true, HEADER + 2L * (SEGMENT + TRAILER), false, 0));
        StreamStateHandle first = shared(1, 1);
        complete(1, 1);
        complete(2, 2);
        assertThat(liveBytes()).isZero();
        assertThat(exists(first)).as("still taking segments").isTrue();

        StreamStateHandle second = shared(3, 2); // fills the file, which closes
        assertThat(fileOf(second)).isEqualTo(fileOf(first));
        assertThat(manager.spaceUsage().openFiles()).isZero();
        assertThat(exists(first)).isTrue();

        complete(4, 4);
        assertThat(exists(first)).isFalse();
        assertThat(manager.spaceUsage().files()).isZero();
    }

    // ------------------------------------------------------------------ rule 3: reuse

    @Test
    void rule3TryReuseRefusesDeadSegmentsAndHandlesThatAreNoSegmentOfThisRun() throws IOException {
        start("run1", across());
        StreamStateHandle dead = shared(1, 1);
        complete(1, 1);
        complete(2, 2);
        StreamStateHandle live = shared(3, 3);
        FileSegmentHandle segment = segment(live);

        assertThat(reuse(4, dead)).isFalse();
        assertThat(reuse(4, new FileSegmentHandle(segment.file(), segment.offset(), segment.length() - 1))).isFalse();
        assertThat(reuse(4, new FileSegmentHandle(segment.file(), segment.offset() + 1, segment.length()))).isFalse();
        FsPath ofAnotherRun = fixture.sharedDirectory(subtask).resolve("written-by-an-earlier-run");
        assertThat(reuse(4, new FileSegmentHandle(ofAnotherRun, HEADER, 10))).isFalse();
        // Not merged: the JobManager counts references to these whole files.
        assertThat(reuse(4, new FileSegmentHandle(fixture.directories.shared().resolve("000007.sst"), 0, 10))).isTrue();
        assertThat(reuse(4, new InlineStateHandle(new byte[] {1}))).isTrue();
        assertThat(reuse(4, live)).isTrue();
    }

    // ------------------------------------------------------------------ rule 4: restored files

    @Test
    void rule4RestoredSegmentsAreCountedAndReusableButNeverDeletedAndForgottenOnceDead() throws IOException {
        start("run1", within());
        StreamStateHandle kept = shared(1, 1);
        StreamStateHandle dropped = shared(1, 2);
        StreamStateHandle operatorState = exclusive(subtask, 1, 3);
        StreamStateHandle otherOperatorState = exclusive(other, 1, 4);
        complete(1, 1);
        manager.acknowledging(other, 1);
        manager.close();
        List<FsPath> restoredFiles = fixture.filesOnDisk();
        assertThat(restoredFiles).containsExactlyInAnyOrder(fileOf(kept), fileOf(operatorState));

        // The job restores checkpoint 1 into a new run: both subtasks restore their state.
        start("run2", within());
        manager.restore(subtask, 1, List.of(kept, dropped, operatorState, new InlineStateHandle(new byte[] {1}),
                new FileSegmentHandle(fixture.directories.checkpoint(1).resolve("not-merged"), 0, 5)));
        manager.restore(other, 1, List.of(otherOperatorState));
        long restoredBytes = restoredFiles.stream().mapToLong(fixture::size).sum();
        assertThat(manager.spaceUsage()).isEqualTo(new SpaceUsage(restoredBytes,
                4L * SEGMENT, 2, 0));

        assertThat(reuse(2, kept)).isTrue();
        StreamStateHandle next = shared(2, 5);
        assertThat(fileOf(next)).as("a new run never appends to a restored file").isNotEqualTo(fileOf(kept));
        assertThat(fileOf(next).parent()).isEqualTo(fileOf(kept).parent());
        manager.acknowledging(other, 2);
        complete(2, 2);
        assertThat(manager.spaceUsage().files()).as("the restored private file is forgotten").isEqualTo(2);
        assertThat(liveBytes()).isEqualTo(2L * SEGMENT);

        manager.acknowledging(other, 3);
        complete(3, 3);
        assertThat(manager.spaceUsage().files()).isZero();
        assertThat(exists(next)).isFalse();
        assertThat(fixture.filesOnDisk()).as("the JobManager adopted the restored files")
                .containsExactlyInAnyOrderElementsOf(restoredFiles);
        fixture.assertReadsBack(kept, bytes(SEGMENT, 1));
    }

    @Test
    void rule4ARestoredSegmentThatDiedIsNeverReusedAgain() throws IOException {
        start("run1", within());
        StreamStateHandle restored = shared(1, 1);
        complete(1, 1);
        manager.close();

        start("run2", within());
        manager.restore(subtask, 1, List.of(restored));
        complete(2, 2);

        assertThat(reuse(3, restored)).isFalse();
        assertThat(exists(restored)).isTrue();
    }

    // ------------------------------------------------------------------ rule 5: directories and the end of the run

    @Test
    void rule5EveryAcknowledgementNamesTheSubtasksSharedDirectoryAndTheRunsPrivateOne() {
        start("run1", within());

        assertThat(manager.acknowledging(subtask, 1)).containsExactlyInAnyOrder(fixture.sharedDirectory(subtask),
                fixture.directories.taskOwned().resolve("tm-run1"));
        assertThat(manager.acknowledging(other, 1)).containsExactlyInAnyOrder(fixture.sharedDirectory(other),
                manager.privateDirectory());
    }

    @Test
    void rule5AJobStoppedBeforeItsFirstCheckpointLeavesNothing() throws IOException {
        start("run1", across());
        shared(1, 1);
        write(manager, other, 1, SHARED, bytes(2 * MergingFixture.APPEND_BUFFER_BYTES, 2));
        exclusive(subtask, 1, 3);
        exclusive(other, 2, 4);
        assertThat(fixture.filesOnDisk()).hasSize(3);

        manager.close();

        assertThat(fixture.filesOnDisk()).isEmpty();
        assertThat(fixture.exists(manager.privateDirectory())).isFalse();
        assertThat(fixture.exists(fixture.sharedDirectory(subtask))).isFalse();
        assertThat(fixture.exists(fixture.sharedDirectory(other))).isFalse();
    }

    @Test
    void rule5CloseKeepsTheFilesASentNotAbortedAcknowledgementMayReferTo() throws IOException {
        start("run1", within());
        StreamStateHandle acknowledged = shared(1, 1);
        StreamStateHandle acknowledgedPrivate = exclusive(subtask, 1, 2);
        StreamStateHandle neverAcknowledged = write(manager, other, 1, SHARED, bytes(SEGMENT, 3));
        StreamStateHandle inTheSamePrivateFile = exclusive(other, 1, 4);
        manager.acknowledging(subtask, 1);
        StreamStateHandle aborted = shared(2, 5);
        StreamStateHandle abortedPrivate = exclusive(subtask, 2, 6);
        manager.acknowledging(subtask, 2);
        manager.checkpointAborted(2);
        StreamStateHandle unsent = shared(3, 7);
        StreamStateHandle unsentPrivate = exclusive(subtask, 3, 8);

        manager.close();

        assertThat(fixture.filesOnDisk()).containsExactlyInAnyOrder(fileOf(acknowledged), fileOf(acknowledgedPrivate));
        assertThat(fileOf(inTheSamePrivateFile)).isEqualTo(fileOf(acknowledgedPrivate));
        fixture.assertReadsBack(acknowledged, bytes(SEGMENT, 1));
        fixture.assertReadsBack(acknowledgedPrivate, bytes(SEGMENT, 2));
        for (StreamStateHandle gone : List.of(neverAcknowledged, aborted, abortedPrivate, unsent, unsentPrivate)) {
            assertThat(exists(gone)).as("file of %s", gone).isFalse();
        }
        assertThat(fixture.exists(manager.privateDirectory())).isTrue();
        assertThat(fixture.exists(fixture.sharedDirectory(subtask))).isTrue();
        assertThat(fixture.exists(fixture.sharedDirectory(other))).as("never named").isFalse();
    }

    @Test
    void rule5AJobWhoseEveryAcknowledgedCheckpointWasAbortedLeavesNothing() throws IOException {
        start("run1", across());
        shared(1, 1);
        exclusive(subtask, 1, 2);
        manager.acknowledging(subtask, 1);
        manager.checkpointAborted(1);
        shared(2, 3);
        exclusive(subtask, 2, 4);
        manager.acknowledging(subtask, 2);
        manager.checkpointAborted(2);

        manager.close();

        assertThat(fixture.filesOnDisk()).isEmpty();
        assertThat(fixture.exists(manager.privateDirectory())).isFalse();
        assertThat(fixture.exists(fixture.sharedDirectory(subtask))).isFalse();
    }

    @Test
    void rule5AStreamStillWrittenWhenTheRunEndsLeavesNothing() throws IOException {
        start("run1", within());
        io.duraflow.state.storage.CheckpointOutputStream late = manager.streamFactory(subtask, 1)
                .createCheckpointOutputStream(EXCLUSIVE);
        late.write(bytes(2 * MergingFixture.APPEND_BUFFER_BYTES, 1)); // holds a file
        StreamStateHandle earlier = shared(1, 2);

        manager.close(); // the task ended; its snapshot thread is still uploading
        StreamStateHandle handle = late.closeAndGetHandle();

        assertThat(exists(earlier)).isFalse();
        assertThat(exists(handle)).as("no acknowledgement can refer to it").isFalse();
        assertThat(fixture.filesOnDisk()).isEmpty();
        assertThat(fixture.exists(manager.privateDirectory())).isFalse();
        assertThat(fixture.exists(fixture.sharedDirectory(subtask))).isFalse();
    }

    @Test
    void rule5AClosedManagerTakesNoStreamAndClosesOnce() throws IOException {
        start("run1", within());
        manager.close();
        manager.close();

        assertThatThrownBy(() -> shared(1, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed: its run ended");
        assertThatThrownBy(() -> manager.register(subtask)).isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------ rule 6: space

    /**
     * Twelve segments in three full files; two completions later one segment of the first file is
     * live, two of each other: 12216 bytes for 5000 live (2.4x, limit 2).
     */
    @Test
    void rule6SpaceControlPicksTheMostWastefulFilesAndTheyGoOnceTheirSegmentsDie() throws IOException {
        start("run1", settings(true, FOUR_SEGMENTS, false, 2.0));
        List<StreamStateHandle> written = shared(1, 12, 1);
        complete(1, 1);
        List<StreamStateHandle> kept = List.of(written.get(0), written.get(4), written.get(5), written.get(8),
                written.get(9));
        reuseAll(2, kept);
        complete(2, 2);

        assertThat(manager.spaceUsage().physicalBytes()).isEqualTo(3 * FOUR_SEGMENTS);
        assertThat(reuse(3, written.get(0))).as("in the most wasteful file").isFalse();
        reuseAll(3, kept.subList(1, 5));
        StreamStateHandle rewritten = shared(3, 1);
        complete(3, 3);

        assertThat(exists(written.get(0))).isFalse();
        assertThat(exists(written.get(4))).isTrue();
        assertThat(manager.spaceUsage().physicalBytes()).isEqualTo(2 * FOUR_SEGMENTS + HEADER + SEGMENT + TRAILER);
        assertThat(manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        fixture.assertReadsBack(rewritten, bytes(SEGMENT, 1));
    }

    @Test
    void rule6AnOpenFilePickedBySpaceControlIsClosedAndNotReusable() throws IOException {
        start("run1", across());
        List<StreamStateHandle> first = shared(1, 4, 1);
        complete(1, 1);
        reuseAll(2, first);
        StreamStateHandle second = shared(2, 5);
        assertThat(fileOf(second)).isEqualTo(fileOf(first.get(0)));
        complete(2, 2);
        // Checkpoint 3 writes nothing here and refers to two of the file's five segments.
        reuseAll(3, List.of(first.get(0), second));

        complete(3, 3); // 5088 bytes for 2000 live

        assertThat(manager.spaceUsage().openFiles()).isZero();
        assertThat(reuse(4, first.get(0))).isFalse();
        assertThat(reuse(4, second)).isFalse();
        StreamStateHandle rewritten = shared(4, 1);
        StreamStateHandle rewrittenSecond = shared(4, 5);
        assertThat(fileOf(rewritten)).isNotEqualTo(fileOf(second));
        complete(4, 4);
        assertThat(exists(second)).isFalse();
        assertThat(manager.spaceUsage()).isEqualTo(new SpaceUsage(
                HEADER + 2 * (SEGMENT + TRAILER), 2 * SEGMENT, 1, 1, 1, 0));
        fixture.assertReadsBack(rewrittenSecond, bytes(SEGMENT, 5));
    }

    /**
     * After a compaction a checkpoint refers to little of the open file: its new segments go to a
     * new file, and the old one goes at the completion, so space stays within the limit without
     * writing any live segment again.
     */
    @Test
    void rule6ACheckpointThatWouldLeaveItsOpenFileWastefulTakesANewOne() throws IOException {
        start("run1", across());
        List<StreamStateHandle> first = shared(1, 4, 1);
        complete(1, 1);
        reuseAll(2, first.subList(0, 2)); // 2000 of 4064 segment bytes: above 2.0

        StreamStateHandle compacted = shared(2, 5);

        assertThat(fileOf(compacted)).isNotEqualTo(fileOf(first.get(0)));
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(1);
        complete(2, 2);
        assertThat(manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        reuseAll(3, List.of(first.get(0), first.get(1), compacted));
        StreamStateHandle third = shared(3, 6);
        assertThat(fileOf(third)).isEqualTo(fileOf(compacted));
        complete(3, 3);
        reuseAll(4, List.of(compacted, third));
        shared(4, 7);
        complete(4, 4);

        assertThat(exists(first.get(0))).as("no checkpoint refers to the old file any more").isFalse();
        assertThat(manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
        fixture.assertReadsBack(compacted, bytes(SEGMENT, 5));
    }

    /** A checkpoint that keeps referring to most of its open file appends to it: merging across checkpoints stays. */
    @Test
    void rule6ACheckpointThatKeepsMostOfItsOpenFileAppendsToIt() throws IOException {
        start("run1", across());
        List<StreamStateHandle> first = shared(1, 4, 1);
        complete(1, 1);
        reuseAll(2, first.subList(0, 3)); // 3000 of 4064 segment bytes: within 2.0

        StreamStateHandle second = shared(2, 5);

        assertThat(fileOf(second)).isEqualTo(fileOf(first.get(0)));
        StreamStateHandle more = shared(2, 6);
        assertThat(fileOf(more)).as("decided once per checkpoint").isEqualTo(fileOf(second));
    }

    /**
     * A wasteful open file stays when the subtask's files together are within the limit: a new file
     * would not lower the bytes on disk, only add a file.
     */
    @Test
    void rule6AnOpenFileStaysWhenTheSubtasksFilesAreWithinTheLimit() throws IOException {
        start("run1", settings(true, 6 * (SEGMENT + TRAILER) + HEADER, false, 2.0));
        List<StreamStateHandle> big = shared(1, 6, 1); // fills the first file, which closes
        StreamStateHandle open = shared(1, 7);
        StreamStateHandle dying = shared(1, 8);
        complete(1, 1);
        assertThat(fileOf(open)).isNotEqualTo(fileOf(big.get(0)));
        reuseAll(2, big);

        StreamStateHandle second = shared(2, 9);

        assertThat(fileOf(second)).isEqualTo(fileOf(open));
        assertThat(exists(dying)).isTrue();
    }

    @Test
    void rule6AnAmplificationLimitBelowOneControlsNothing() throws IOException {
        start("run1", settings(true, 1 << 20, false, 0.99));
        List<StreamStateHandle> first = shared(1, 4, 1);
        complete(1, 1);
        assertThat(reuse(2, first.get(0))).isTrue();
        shared(2, 5);

        complete(2, 2);

        assertThat(manager.spaceUsage().amplification()).isGreaterThan(2.5);
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(1);
        assertThat(reuse(3, first.get(0))).isTrue();
    }

    /**
     * With two checkpoints retained, a picked file lives on for one more completion while its
     * segments are written again elsewhere: the bytes it will free count, so no other file is
     * picked while they bring the total under the limit.
     */
    @Test
    void rule6FilesAlreadyPickedCountAsFreedSoNoMoreArePicked() throws IOException {
        start("run1", settings(true, FOUR_SEGMENTS, false, 2.0));
        List<StreamStateHandle> written = shared(1, 12, 1);
        complete(1, 1);
        List<StreamStateHandle> kept = List.of(written.get(0), written.get(4), written.get(5), written.get(8),
                written.get(9));
        reuseAll(2, kept);
        complete(2, 1);
        reuseAll(3, kept);
        complete(3, 2); // 12216 bytes for 5000 live: the first file is picked

        assertThat(reuse(4, written.get(0))).isFalse();
        reuseAll(4, kept.subList(1, 5));
        StreamStateHandle rewritten = shared(4, 1);
        complete(4, 3); // 13240 bytes for 6000 live, but the first file will free 3072 of them

        reuseAll(5, kept.subList(1, 5));
        assertThat(reuse(5, rewritten)).isTrue();
        complete(5, 4);
        assertThat(exists(written.get(0))).isFalse();
        assertThat(manager.spaceUsage().amplification()).isLessThanOrEqualTo(2.0);
    }
}

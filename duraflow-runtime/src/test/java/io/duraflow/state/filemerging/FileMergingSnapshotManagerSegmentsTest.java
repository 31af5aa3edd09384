package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.HEADER;
import static io.duraflow.state.filemerging.MergingFixture.TRAILER;
import static io.duraflow.state.filemerging.MergingFixture.across;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.segment;
import static io.duraflow.state.filemerging.MergingFixture.settings;
import static io.duraflow.state.filemerging.MergingFixture.within;
import static io.duraflow.state.filemerging.SnapshotManagerHarness.SEGMENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rules 1 to 3 of {@link FileMergingSnapshotManager} (numbered as in
 * docs/design/checkpoint-file-merging.md), on the local file system: how long a segment lives
 * (completions, aborts, lost and repeated notifications), when a file goes, and which segments a
 * checkpoint may reuse. Segments are 1000 bytes, so a segment takes 1016 bytes of its file.
 */
class FileMergingSnapshotManagerSegmentsTest {
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

    // ------------------------------------------------------------------ rule 1: segments

    @Test
    void rule1ASegmentLivesUntilACompletionsLowestRetainedIdPassesItsLastUse() throws IOException {
        harness.start("run1", within());
        StreamStateHandle first = harness.shared(1, 1);

        harness.complete(1, 1);
        assertThat(harness.liveBytes()).isEqualTo(SEGMENT);
        harness.complete(2, 1); // two retained: 1 and 2
        assertThat(harness.liveBytes()).isEqualTo(SEGMENT);
        harness.fixture.assertReadsBack(first, bytes(SEGMENT, 1));

        harness.complete(3, 2);
        assertThat(harness.liveBytes()).isZero();
        assertThat(harness.exists(first)).isFalse();
        assertThat(harness.manager.spaceUsage().files()).isZero();
    }

    @Test
    void rule1ALostNotificationIsCaughtUpByTheNext() throws IOException {
        harness.start("run1", within());
        StreamStateHandle first = harness.shared(1, 1);
        harness.manager.acknowledging(harness.subtask, 1);
        StreamStateHandle second = harness.shared(2, 2);
        harness.manager.acknowledging(harness.subtask, 2);
        // The notifications of 1 and 2 are lost.

        harness.complete(3, 3);

        assertThat(harness.liveBytes()).isZero();
        assertThat(harness.exists(first)).isFalse();
        assertThat(harness.exists(second)).isFalse();
    }

    @Test
    void rule1And3AReuseMovesTheWatermark() throws IOException {
        harness.start("run1", within());
        StreamStateHandle first = harness.shared(1, 1);
        harness.complete(1, 1);

        assertThat(harness.reuse(2, first)).isTrue();
        StreamStateHandle second = harness.shared(2, 2);
        harness.complete(2, 2);
        assertThat(harness.liveBytes()).isEqualTo(2 * SEGMENT);
        harness.fixture.assertReadsBack(first, bytes(SEGMENT, 1));

        harness.complete(3, 3);
        assertThat(harness.liveBytes()).isZero();
        assertThat(harness.exists(first)).isFalse();
        assertThat(harness.exists(second)).isFalse();
    }

    @Test
    void rule1AnAbortKillsOnlyTheSegmentsCreatedForItAndNotReused() throws IOException {
        harness.start("run1", within());
        StreamStateHandle first = harness.shared(1, 1);
        harness.complete(1, 1);
        assertThat(harness.reuse(2, first)).isTrue();
        StreamStateHandle second = harness.shared(2, 2);
        StreamStateHandle third = harness.shared(3, 3);
        assertThat(harness.reuse(4, third)).as("checkpoint 4 started before 3 was aborted").isTrue();

        harness.manager.checkpointAborted(2);
        harness.manager.checkpointAborted(3);

        assertThat(harness.exists(second)).isFalse();
        assertThat(harness.liveBytes()).isEqualTo(2 * SEGMENT);
        harness.fixture.assertReadsBack(first, bytes(SEGMENT, 1));
        harness.fixture.assertReadsBack(third, bytes(SEGMENT, 3));
        assertThat(harness.reuse(5, second)).isFalse();
    }

    @Test
    void rule1ASegmentWrittenAfterItsCheckpointWasAbortedOrSubsumedIsDeadAtOnce() throws IOException {
        harness.start("run1", within());
        harness.manager.checkpointAborted(5);
        StreamStateHandle late = harness.shared(5, 5);

        assertThat(harness.exists(late)).isFalse();
        assertThat(harness.manager.spaceUsage()).isEqualTo(new SpaceUsage(0, 0, 0, 0));

        harness.complete(7, 7);
        StreamStateHandle later = harness.shared(6, 6);
        assertThat(harness.exists(later)).isFalse();
        assertThat(harness.liveBytes()).isZero();
    }

    @Test
    void rule1AcrossCheckpointsALateSegmentIsDeadAtOnceAndItsOpenFileGoesWhenTheNextCheckpointWrites()
            throws IOException {
        harness.start("run1", across());
        harness.manager.checkpointAborted(5);
        StreamStateHandle late = harness.shared(5, 5);

        assertThat(harness.liveBytes()).isZero();
        assertThat(harness.exists(late)).as("open: it may take the next checkpoint's segments").isTrue();
        StreamStateHandle next = harness.shared(6, 6);
        assertThat(fileOf(next)).as("rule 6: the open file holds nothing live").isNotEqualTo(fileOf(late));
        assertThat(harness.exists(late)).isFalse();
        assertThat(harness.liveBytes()).isEqualTo(SEGMENT);
    }

    @Test
    void rule1OlderAndRepeatedNotificationsChangeNothing() throws IOException {
        harness.start("run1", within());
        StreamStateHandle third = harness.shared(3, 3);
        harness.complete(3, 3);
        harness.complete(3, 3);
        harness.manager.checkpointCompleted(2, 2);
        harness.manager.checkpointAborted(2);

        assertThat(harness.liveBytes()).isEqualTo(SEGMENT);
        harness.fixture.assertReadsBack(third, bytes(SEGMENT, 3));
    }

    // ------------------------------------------------------------------ rule 2: files

    @Test
    void rule2AnOpenFileOutlivesItsSegmentsAndGoesOnceClosedWithoutLiveSegments() throws IOException {
        harness.start("run1", settings(true, HEADER + 2L * (SEGMENT + TRAILER), false, 0));
        StreamStateHandle first = harness.shared(1, 1);
        harness.complete(1, 1);
        harness.complete(2, 2);
        assertThat(harness.liveBytes()).isZero();
        assertThat(harness.exists(first)).as("still taking segments").isTrue();

        StreamStateHandle second = harness.shared(3, 2); // fills the file, which closes
        assertThat(fileOf(second)).isEqualTo(fileOf(first));
        assertThat(harness.manager.spaceUsage().openFiles()).isZero();
        assertThat(harness.exists(first)).isTrue();

        harness.complete(4, 4);
        assertThat(harness.exists(first)).isFalse();
        assertThat(harness.manager.spaceUsage().files()).isZero();
    }

    // ------------------------------------------------------------------ rule 3: reuse

    @Test
    void rule3TryReuseRefusesDeadSegmentsAndHandlesThatAreNoSegmentOfThisRun() throws IOException {
        harness.start("run1", across());
        StreamStateHandle dead = harness.shared(1, 1);
        harness.complete(1, 1);
        harness.complete(2, 2);
        StreamStateHandle live = harness.shared(3, 3);
        FileSegmentHandle segment = segment(live);

        assertThat(harness.reuse(4, dead)).isFalse();
        assertThat(harness.reuse(4, new FileSegmentHandle(segment.file(), segment.offset(), segment.length() - 1)))
                .isFalse();
        assertThat(harness.reuse(4, new FileSegmentHandle(segment.file(), segment.offset() + 1, segment.length())))
                .isFalse();
        FsPath ofAnotherRun = harness.fixture.sharedDirectory(harness.subtask).resolve("written-by-an-earlier-run");
        assertThat(harness.reuse(4, new FileSegmentHandle(ofAnotherRun, HEADER, 10))).isFalse();
        // Not merged: the JobManager counts references to these whole files.
        assertThat(harness.reuse(4, new FileSegmentHandle(harness.fixture.directories.shared().resolve("000007.sst"),
                0, 10))).isTrue();
        assertThat(harness.reuse(4, new InlineStateHandle(new byte[] {1}))).isTrue();
        assertThat(harness.reuse(4, live)).isTrue();
    }
}

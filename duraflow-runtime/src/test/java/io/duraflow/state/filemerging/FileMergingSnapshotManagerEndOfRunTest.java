package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.across;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.within;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static io.duraflow.state.filemerging.SnapshotManagerHarness.SEGMENT;
import static io.duraflow.state.storage.CheckpointedStateScope.EXCLUSIVE;
import static io.duraflow.state.storage.CheckpointedStateScope.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 5 of {@link FileMergingSnapshotManager} (numbered as in
 * docs/design/checkpoint-file-merging.md), on the local file system: the directories each
 * acknowledgement names, and what the files of a run come to when the run ends (closed, stopped
 * before a checkpoint, every checkpoint aborted, a stream still written).
 */
class FileMergingSnapshotManagerEndOfRunTest {
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
    void rule5EveryAcknowledgementNamesTheSubtasksSharedDirectoryAndTheRunsPrivateOne() {
        harness.start("run1", within());

        assertThat(harness.manager.acknowledging(harness.subtask, 1)).containsExactlyInAnyOrder(
                harness.fixture.sharedDirectory(harness.subtask),
                harness.fixture.directories.taskOwned().resolve("tm-run1"));
        assertThat(harness.manager.acknowledging(harness.other, 1)).containsExactlyInAnyOrder(
                harness.fixture.sharedDirectory(harness.other), harness.manager.privateDirectory());
    }

    @Test
    void rule5AJobStoppedBeforeItsFirstCheckpointLeavesNothing() throws IOException {
        harness.start("run1", across());
        harness.shared(1, 1);
        write(harness.manager, harness.other, 1, SHARED, bytes(2 * MergingFixture.APPEND_BUFFER_BYTES, 2));
        harness.exclusive(harness.subtask, 1, 3);
        harness.exclusive(harness.other, 2, 4);
        assertThat(harness.fixture.filesOnDisk()).hasSize(3);

        harness.manager.close();

        assertThat(harness.fixture.filesOnDisk()).isEmpty();
        assertThat(harness.fixture.exists(harness.manager.privateDirectory())).isFalse();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.subtask))).isFalse();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.other))).isFalse();
    }

    @Test
    void rule5CloseKeepsTheFilesASentNotAbortedAcknowledgementMayReferTo() throws IOException {
        harness.start("run1", within());
        StreamStateHandle acknowledged = harness.shared(1, 1);
        StreamStateHandle acknowledgedPrivate = harness.exclusive(harness.subtask, 1, 2);
        StreamStateHandle neverAcknowledged = write(harness.manager, harness.other, 1, SHARED, bytes(SEGMENT, 3));
        StreamStateHandle inTheSamePrivateFile = harness.exclusive(harness.other, 1, 4);
        harness.manager.acknowledging(harness.subtask, 1);
        StreamStateHandle aborted = harness.shared(2, 5);
        StreamStateHandle abortedPrivate = harness.exclusive(harness.subtask, 2, 6);
        harness.manager.acknowledging(harness.subtask, 2);
        harness.manager.checkpointAborted(2);
        StreamStateHandle unsent = harness.shared(3, 7);
        StreamStateHandle unsentPrivate = harness.exclusive(harness.subtask, 3, 8);

        harness.manager.close();

        assertThat(harness.fixture.filesOnDisk())
                .containsExactlyInAnyOrder(fileOf(acknowledged), fileOf(acknowledgedPrivate));
        assertThat(fileOf(inTheSamePrivateFile)).isEqualTo(fileOf(acknowledgedPrivate));
        harness.fixture.assertReadsBack(acknowledged, bytes(SEGMENT, 1));
        harness.fixture.assertReadsBack(acknowledgedPrivate, bytes(SEGMENT, 2));
        for (StreamStateHandle gone : List.of(neverAcknowledged, aborted, abortedPrivate, unsent, unsentPrivate)) {
            assertThat(harness.exists(gone)).as("file of %s", gone).isFalse();
        }
        assertThat(harness.fixture.exists(harness.manager.privateDirectory())).isTrue();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.subtask))).isTrue();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.other))).as("never named").isFalse();
    }

    @Test
    void rule5AJobWhoseEveryAcknowledgedCheckpointWasAbortedLeavesNothing() throws IOException {
        harness.start("run1", across());
        harness.shared(1, 1);
        harness.exclusive(harness.subtask, 1, 2);
        harness.manager.acknowledging(harness.subtask, 1);
        harness.manager.checkpointAborted(1);
        harness.shared(2, 3);
        harness.exclusive(harness.subtask, 2, 4);
        harness.manager.acknowledging(harness.subtask, 2);
        harness.manager.checkpointAborted(2);

        harness.manager.close();

        assertThat(harness.fixture.filesOnDisk()).isEmpty();
        assertThat(harness.fixture.exists(harness.manager.privateDirectory())).isFalse();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.subtask))).isFalse();
    }

    @Test
    void rule5AStreamStillWrittenWhenTheRunEndsLeavesNothing() throws IOException {
        harness.start("run1", within());
        io.duraflow.state.storage.CheckpointOutputStream late = harness.manager.streamFactory(harness.subtask, 1)
                .createCheckpointOutputStream(EXCLUSIVE);
        late.write(bytes(2 * MergingFixture.APPEND_BUFFER_BYTES, 1)); // holds a file
        StreamStateHandle earlier = harness.shared(1, 2);

        harness.manager.close(); // the task ended; its snapshot thread is still uploading
        StreamStateHandle handle = late.closeAndGetHandle();

        assertThat(harness.exists(earlier)).isFalse();
        assertThat(harness.exists(handle)).as("no acknowledgement can refer to it").isFalse();
        assertThat(harness.fixture.filesOnDisk()).isEmpty();
        assertThat(harness.fixture.exists(harness.manager.privateDirectory())).isFalse();
        assertThat(harness.fixture.exists(harness.fixture.sharedDirectory(harness.subtask))).isFalse();
    }

    @Test
    void rule5AClosedManagerTakesNoStreamAndClosesOnce() throws IOException {
        harness.start("run1", within());
        harness.manager.close();
        harness.manager.close();

        assertThatThrownBy(() -> harness.shared(1, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed: its run ended");
        assertThatThrownBy(() -> harness.manager.register(harness.subtask)).isInstanceOf(IllegalStateException.class);
    }
}

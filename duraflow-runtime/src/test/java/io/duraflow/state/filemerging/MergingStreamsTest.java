package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.APPEND_BUFFER_BYTES;
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
import static org.awaitility.Awaitility.await;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where the streams of {@link MergingStreams} land: which physical file a segment goes to
 * ({@link FilePool}'s rules, merging within or across checkpoints, blocking or not), and that every
 * segment reads back exactly, also with many writers at once.
 */
class MergingStreamsTest {
    private static final int LARGE = APPEND_BUFFER_BYTES + 1000;

    @TempDir
    Path tmp;

    private MergingFixture fixture;
    private final SubtaskKey subtask = new SubtaskKey(1, 0, 2);
    private final SubtaskKey other = new SubtaskKey(1, 1, 2);
    private final List<FileMergingSnapshotManager> managers = new ArrayList<>();

    @BeforeEach
    void setUp() {
        fixture = new MergingFixture(tmp);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(FileMergingSnapshotManager::close);
    }

    private FileMergingSnapshotManager manager(FileMergingSettings settings) {
        FileMergingSnapshotManager manager = fixture.manager("run1", settings, subtask, other);
        managers.add(manager);
        return manager;
    }

    @Test
    void tenStreamsOfOneCheckpointShareOneFileAndReadBackExactly() throws IOException {
        FileMergingSnapshotManager manager = manager(within());
        List<byte[]> written = new ArrayList<>();
        List<StreamStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            // Appended and written-through streams alternate; the two subtasks share the private file.
            byte[] bytes = bytes(i % 2 == 0 ? 100 + i : LARGE + i, i);
            handles.add(write(manager, i % 3 == 0 ? other : subtask, 1, EXCLUSIVE, bytes));
            written.add(bytes);
        }

        assertThat(handles.stream().map(MergingFixture::fileOf).distinct()).hasSize(1);
        FsPath file = fileOf(handles.get(0));
        long expectedOffset = HEADER;
        for (int i = 0; i < handles.size(); i++) {
            fixture.assertReadsBack(handles.get(i), written.get(i));
            assertThat(segment(handles.get(i)).offset()).isEqualTo(expectedOffset);
            expectedOffset += written.get(i).length + TRAILER;
        }
        long liveBytes = written.stream().mapToLong(bytes -> bytes.length).sum();
        assertThat(fixture.size(file)).isEqualTo(expectedOffset);
        assertThat(manager.spaceUsage()).isEqualTo(new SpaceUsage(expectedOffset, liveBytes,
                1, 1, 1, 0));
        assertThat(fixture.filesOnDisk()).containsExactly(file);
    }

    @Test
    void sharedStateGoesToTheSubtasksDirectoryAndPrivateStateToTheRunsDirectory() throws IOException {
        FileMergingSnapshotManager manager = manager(within());

        StreamStateHandle shared = write(manager, subtask, 1, SHARED, bytes(10, 1));
        StreamStateHandle otherShared = write(manager, other, 1, SHARED, bytes(10, 2));
        StreamStateHandle exclusive = write(manager, subtask, 1, EXCLUSIVE, bytes(10, 3));

        assertThat(fileOf(shared).parent()).isEqualTo(fixture.directories.shared().resolve("subtask-0-2-v1"));
        assertThat(fileOf(otherShared).parent()).isEqualTo(fixture.directories.shared().resolve("subtask-1-2-v1"));
        assertThat(fileOf(exclusive).parent()).isEqualTo(fixture.directories.taskOwned().resolve("tm-run1"))
                .isEqualTo(manager.privateDirectory());
        assertThat(manager.acknowledging(subtask, 1)).containsExactlyInAnyOrder(fileOf(shared).parent(),
                manager.privateDirectory());
    }

    @Test
    void streamsUpToTheInlineThresholdTakeNoFile() throws IOException {
        FileMergingSnapshotManager manager = fixture.manager("run1", new FileMergingSettings(false, 1 << 20, false, 4,
                2.0, 16, APPEND_BUFFER_BYTES), subtask);
        managers.add(manager);

        StreamStateHandle inline = write(manager, subtask, 1, SHARED, bytes(16, 1));
        StreamStateHandle merged = write(manager, subtask, 1, SHARED, bytes(17, 2));

        assertThat(inline).isEqualTo(new InlineStateHandle(bytes(16, 1)));
        assertThat(merged).isInstanceOf(FileSegmentHandle.class);
        assertThat(fixture.filesOnDisk()).containsExactly(fileOf(merged));
    }

    @Test
    void withinCheckpointsTheFilesOfCheckpointNTakeNoSegmentOfTheNext() throws IOException {
        FileMergingSnapshotManager manager = manager(within());

        StreamStateHandle first = write(manager, subtask, 1, EXCLUSIVE, bytes(100, 1));
        StreamStateHandle second = write(manager, subtask, 2, EXCLUSIVE, bytes(100, 2));
        StreamStateHandle firstAgain = write(manager, other, 1, EXCLUSIVE, bytes(LARGE, 3));
        StreamStateHandle sharedFirst = write(manager, subtask, 1, SHARED, bytes(100, 4));
        StreamStateHandle sharedSecond = write(manager, subtask, 2, SHARED, bytes(100, 5));

        assertThat(fileOf(second)).isNotEqualTo(fileOf(first));
        assertThat(fileOf(firstAgain)).isEqualTo(fileOf(first));
        assertThat(fileOf(sharedSecond)).isNotEqualTo(fileOf(sharedFirst));
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(4);

        // The completion of checkpoint 1 closes its files; a late stream of it gets a file of its own.
        manager.acknowledging(subtask, 1);
        manager.acknowledging(other, 1);
        manager.checkpointCompleted(1, 1);
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(2);
        StreamStateHandle secondAgain = write(manager, other, 2, EXCLUSIVE, bytes(100, 6));
        assertThat(fileOf(secondAgain)).isEqualTo(fileOf(second));
        fixture.assertReadsBack(firstAgain, bytes(LARGE, 3));
        fixture.assertReadsBack(secondAgain, bytes(100, 6));
    }

    @Test
    void acrossCheckpointsTheFileOfCheckpointNIsReusedByTheNextUntilMaxFileSize() throws IOException {
        // Three segments of 1000 bytes fill a file.
        FileMergingSnapshotManager manager = manager(settings(true, HEADER + 3 * (1000 + TRAILER), false, 2.0));

        StreamStateHandle first = write(manager, subtask, 1, SHARED, bytes(1000, 1));
        manager.acknowledging(subtask, 1);
        manager.checkpointCompleted(1, 1);
        assertThat(manager.streamFactory(subtask, 2).tryReuse(first)).isTrue();
        StreamStateHandle second = write(manager, subtask, 2, SHARED, bytes(1000, 2));
        StreamStateHandle third = write(manager, subtask, 3, SHARED, bytes(1000, 3));
        assertThat(manager.spaceUsage().openFiles()).as("the full file is closed").isZero();
        StreamStateHandle fourth = write(manager, subtask, 3, SHARED, bytes(1000, 4));

        assertThat(fileOf(second)).isEqualTo(fileOf(first));
        assertThat(fileOf(third)).isEqualTo(fileOf(first));
        assertThat(fileOf(fourth)).isNotEqualTo(fileOf(first));
        assertThat(fixture.size(fileOf(first))).isEqualTo(HEADER + 3 * (1000 + TRAILER));
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(1);
        fixture.assertReadsBack(first, bytes(1000, 1));
        fixture.assertReadsBack(third, bytes(1000, 3));
        fixture.assertReadsBack(fourth, bytes(1000, 4));
    }

    @Test
    void anAppendDoesNotWaitForTheFileALargeStreamHoldsButOpensAnother() throws IOException {
        FileMergingSnapshotManager manager = manager(within());
        try (CheckpointOutputStream large = manager.streamFactory(subtask, 1).createCheckpointOutputStream(EXCLUSIVE)) {
            large.write(bytes(LARGE, 1)); // holds a file from here on

            StreamStateHandle appended = write(manager, other, 1, EXCLUSIVE, bytes(100, 2));
            StreamStateHandle appendedAgain = write(manager, other, 1, EXCLUSIVE, bytes(100, 3));
            StreamStateHandle largeHandle = large.closeAndGetHandle();

            assertThat(fileOf(appended)).isNotEqualTo(fileOf(largeHandle));
            assertThat(fileOf(appendedAgain)).isEqualTo(fileOf(appended));
            fixture.assertReadsBack(largeHandle, bytes(LARGE, 1));
            fixture.assertReadsBack(appendedAgain, bytes(100, 3));
        }
    }

    @Test
    void aNonBlockingPoolOpensASecondFileForASecondLargeStreamAndReusesBothAfterwards() throws IOException {
        FileMergingSnapshotManager manager = manager(across());
        CheckpointOutputStream first = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED);
        CheckpointOutputStream second = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED);
        first.write(bytes(LARGE, 1));
        second.write(bytes(LARGE, 2));
        StreamStateHandle secondHandle = second.closeAndGetHandle();
        StreamStateHandle firstHandle = first.closeAndGetHandle();

        assertThat(fileOf(secondHandle)).isNotEqualTo(fileOf(firstHandle));
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(2);
        StreamStateHandle third = write(manager, subtask, 2, SHARED, bytes(LARGE, 3));
        assertThat(fileOf(third)).isIn(fileOf(firstHandle), fileOf(secondHandle));
        assertThat(manager.spaceUsage().files()).isEqualTo(2);
    }

    @Test
    void aBlockingPoolMakesALargeStreamWaitForTheBusyFileInsteadOfOpeningASecond() throws Exception {
        FileMergingSnapshotManager manager = manager(settings(false, 1 << 20, true, 2.0));
        CheckpointOutputStream holder = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED);
        holder.write(bytes(LARGE, 1));

        CompletableFuture<StreamStateHandle> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(write(manager, subtask, 1, SHARED, bytes(LARGE, 2)));
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        }, "waiting-writer");
        thread.start();
        // The second writer blocks in the manager (Object.wait) until the file is given back.
        await().atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.WAITING);
        assertThat(waiter).isNotDone();
        assertThat(manager.spaceUsage().files()).isEqualTo(1);

        StreamStateHandle first = holder.closeAndGetHandle();
        StreamStateHandle second = waiter.get();
        thread.join();

        assertThat(fileOf(second)).isEqualTo(fileOf(first));
        assertThat(segment(second).offset()).isEqualTo(HEADER + LARGE + TRAILER);
        fixture.assertReadsBack(first, bytes(LARGE, 1));
        fixture.assertReadsBack(second, bytes(LARGE, 2));
        assertThat(fixture.filesOnDisk()).containsExactly(fileOf(first));
    }

    @Test
    void aBlockingPoolReusesTheFileGivenBackUntilTheSizeCapClosesIt() throws IOException {
        FileMergingSnapshotManager manager = manager(settings(true, HEADER + 2L * (LARGE + TRAILER), true, 2.0));

        StreamStateHandle first = write(manager, subtask, 1, SHARED, bytes(LARGE, 1));
        StreamStateHandle second = write(manager, subtask, 2, SHARED, bytes(LARGE, 2));
        assertThat(manager.spaceUsage().openFiles()).as("the file reached the cap").isZero();
        StreamStateHandle third = write(manager, subtask, 3, SHARED, bytes(LARGE, 3));

        assertThat(fileOf(second)).isEqualTo(fileOf(first));
        assertThat(fileOf(third)).isNotEqualTo(fileOf(first));
        assertThat(manager.spaceUsage().files()).isEqualTo(2);
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(1);
        fixture.assertReadsBack(second, bytes(LARGE, 2));
        fixture.assertReadsBack(third, bytes(LARGE, 3));
    }

    @Test
    void anAbortedLargeStreamLeavesDeadBytesAndItsFileTakesTheNextSegment() throws IOException {
        FileMergingSnapshotManager manager = manager(across());
        StreamStateHandle before = write(manager, subtask, 1, SHARED, bytes(100, 1));
        try (CheckpointOutputStream aborted = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED)) {
            aborted.write(bytes(LARGE, 2));
        } // close() without a handle aborts
        StreamStateHandle after = write(manager, subtask, 1, SHARED, bytes(100, 3));

        assertThat(fileOf(after)).isEqualTo(fileOf(before));
        assertThat(segment(after).offset()).isEqualTo(HEADER + 100 + TRAILER + LARGE);
        fixture.assertReadsBack(before, bytes(100, 1));
        fixture.assertReadsBack(after, bytes(100, 3));
        assertThat(manager.spaceUsage().physicalBytes()).isEqualTo(fixture.size(fileOf(after)));
        assertThat(manager.spaceUsage().liveBytes()).isEqualTo(200);
    }

    @Test
    void rule2AFailedWriteClosesTheFileAndTheNextStreamOpensANewOne() throws IOException {
        TestFileSystem failing = new TestFileSystem(true);
        fixture = new MergingFixture(tmp, failing);
        FileMergingSnapshotManager manager = manager(settings(true, 1 << 20, false, 0)); // no space control
        StreamStateHandle before = write(manager, subtask, 1, SHARED, bytes(100, 1));

        CheckpointOutputStream broken = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED);
        broken.write(bytes(APPEND_BUFFER_BYTES, 2));
        failing.failNextWrite();
        assertThatThrownBy(() -> broken.write(bytes(2000, 3))).hasMessageContaining("injected write failure");
        assertThatThrownBy(broken::closeAndGetHandle).hasMessageContaining("already aborted");
        StreamStateHandle after = write(manager, subtask, 1, SHARED, bytes(100, 4));

        assertThat(fileOf(after)).isNotEqualTo(fileOf(before));
        fixture.assertReadsBack(before, bytes(100, 1));
        fixture.assertReadsBack(after, bytes(100, 4));
        // The broken file is closed: its torn tail is counted, and it goes once its segment dies.
        assertThat(manager.spaceUsage().physicalBytes())
                .isEqualTo(fixture.size(fileOf(before)) + fixture.size(fileOf(after)));
        assertThat(manager.spaceUsage().openFiles()).isEqualTo(1);
        manager.acknowledging(subtask, 1);
        manager.checkpointCompleted(1, 1);
        manager.checkpointCompleted(2, 2);
        assertThat(fixture.exists(fileOf(before))).isFalse();
        assertThat(fixture.exists(fileOf(after))).isTrue(); // open across checkpoints until the run ends
    }

    @Test
    void aStreamTakesNoWriteAfterItsHandle() throws IOException {
        FileMergingSnapshotManager manager = manager(within());
        CheckpointOutputStream out = manager.streamFactory(subtask, 1).createCheckpointOutputStream(SHARED);
        out.write(bytes(100, 1));
        out.closeAndGetHandle();

        assertThatThrownBy(() -> out.write(1)).hasMessageContaining("already completed: write a new stream");
        out.close(); // no effect after the handle
        assertThat(manager.spaceUsage().liveBytes()).isEqualTo(100);
    }

    /**
     * Twelve threads write streams of three subtasks at once, small and large, both scopes, in
     * writes of random sizes: every segment reads back exactly, segments of one file never overlap,
     * and a blocking pool never opens more files than its capacity.
     */
    @ParameterizedTest(name = "blocking={0}, across={1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void twelveConcurrentWritersNeverInterleaveSegments(boolean blocking, boolean acrossCheckpoints) throws Exception {
        SubtaskKey[] subtasks = {new SubtaskKey(2, 0, 3), new SubtaskKey(2, 1, 3), new SubtaskKey(2, 2, 3)};
        FileMergingSnapshotManager manager = fixture.manager("run1", settings(acrossCheckpoints, 64 << 20, blocking,
                2.0), subtasks);
        managers.add(manager);
        int writers = 12;
        int streamsPerWriter = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        List<Future<List<Written>>> results = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            results.add(threads.submit(() -> {
                Random random = new Random(writer);
                List<Written> written = new ArrayList<>();
                start.await();
                for (int i = 0; i < streamsPerWriter; i++) {
                    SubtaskKey key = subtasks[writer % subtasks.length];
                    CheckpointedStateScope scope = random.nextBoolean() ? SHARED : EXCLUSIVE;
                    byte[] bytes = bytes(random.nextBoolean() ? 1 + random.nextInt(APPEND_BUFFER_BYTES)
                            : APPEND_BUFFER_BYTES + 1 + random.nextInt(30_000), writer * 1000L + i);
                    try (CheckpointOutputStream out = manager.streamFactory(key, 1 + i / 4)
                            .createCheckpointOutputStream(scope)) {
                        for (int offset = 0; offset < bytes.length; ) {
                            int count = Math.min(bytes.length - offset, 1 + random.nextInt(3000));
                            out.write(bytes, offset, count);
                            offset += count;
                        }
                        written.add(new Written(key, scope, out.closeAndGetHandle(), bytes));
                    }
                }
                return written;
            }));
        }
        start.countDown();
        List<Written> all = new ArrayList<>();
        for (Future<List<Written>> result : results) {
            all.addAll(result.get());
        }
        threads.shutdown();

        assertThat(all).hasSize(writers * streamsPerWriter);
        for (Written written : all) {
            fixture.assertReadsBack(written.handle(), written.bytes());
            assertThat(fileOf(written.handle()).parent()).isEqualTo(written.scope() == SHARED
                    ? fixture.sharedDirectory(written.subtask()) : manager.privateDirectory());
        }
        Map<FsPath, List<FileSegmentHandle>> byFile = all.stream().map(w -> segment(w.handle()))
                .collect(Collectors.groupingBy(FileSegmentHandle::file));
        for (List<FileSegmentHandle> segments : byFile.values()) {
            segments.sort(Comparator.comparingLong(FileSegmentHandle::offset));
            for (int i = 1; i < segments.size(); i++) {
                FileSegmentHandle previous = segments.get(i - 1);
                assertThat(segments.get(i).offset()).as("segment after %s", previous)
                        .isGreaterThanOrEqualTo(previous.offset() + previous.length() + TRAILER);
            }
        }
        if (blocking) {
            // Capacity 1 for each subtask's shared state and 1 for the private state of 3 subtasks (4 per
            // file); within checkpoints, pools for each of the two checkpoints.
            assertThat(fixture.filesOnDisk()).hasSizeLessThanOrEqualTo(acrossCheckpoints ? 4 : 8);
        }
        long liveBytes = all.stream().mapToLong(w -> w.bytes().length).sum();
        assertThat(manager.spaceUsage().liveBytes()).isEqualTo(liveBytes);
        assertThat(manager.spaceUsage().physicalBytes())
                .isEqualTo(fixture.filesOnDisk().stream().mapToLong(fixture::size).sum());
    }

    private record Written(SubtaskKey subtask, CheckpointedStateScope scope, StreamStateHandle handle, byte[] bytes) {}
}

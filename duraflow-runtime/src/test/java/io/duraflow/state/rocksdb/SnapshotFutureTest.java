package io.duraflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.filemerging.FileMergingSettings;
import io.duraflow.state.filemerging.FileMergingSnapshotManager;
import io.duraflow.state.filemerging.SubtaskKey;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.FsCheckpointStorage;
import io.duraflow.state.storage.StreamStateHandles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SnapshotFuture} rules 3 and 4: who deletes the files of a result nobody owns. */
class SnapshotFutureTest {
    @TempDir
    Path dir;

    /**
     * Merging across checkpoints, checkpoint 2's SST segment goes into the physical file that holds
     * retained checkpoint 1's segment (which checkpoint 2 refers to again); its snapshot is cancelled while it uploads. The result's
     * discard must leave the file (checkpoint 1 still refers to it); the segment dies with the
     * abort, and the file goes once no checkpoint needs it. (A discard that deleted the handle's
     * file took checkpoint 1's segment with it.)
     */
    @Test
    void aCancelledResultLeavesAMergedFileToItsManager() throws Exception {
        CheckpointDirectories directories = CheckpointDirectories.of(FsPath.of(dir), "job");
        FileMergingSnapshotManager manager = new FileMergingSnapshotManager("job", "tm-1", "run1",
                LocalFileSystem.INSTANCE, directories, new FileMergingSettings(true, 32 << 20, false, 4, 2.0, 0, 1024),
                Runnable::run);
        SubtaskKey subtask = new SubtaskKey(1, 0, 2);
        manager.register(subtask);
        StreamStateHandle retained = write(manager.streamFactory(subtask, 1), "000007.sst of checkpoint 1");
        manager.acknowledging(subtask, 1);
        manager.checkpointCompleted(1, 1);

        CheckpointStreamFactory second = manager.streamFactory(subtask, 2);
        assertThat(second.tryReuse(retained)).as("checkpoint 2 still refers to 000007.sst").isTrue();
        AtomicReference<StreamStateHandle> uploaded = new AtomicReference<>();
        SnapshotFuture future = cancelledWhileRunning(() -> {
            uploaded.set(write(second, "000009.sst of checkpoint 2"));
            return List.of(incremental(2, uploaded.get()));
        }, second);

        FsPath file = ((FileSegmentHandle) retained).file();
        assertThat(((FileSegmentHandle) uploaded.get()).file()).as("one physical file for both segments")
                .isEqualTo(file);
        assertThat(future.isCancelled()).isTrue();
        assertThat(StreamStateHandles.readAll(retained)).asString(StandardCharsets.UTF_8)
                .isEqualTo("000007.sst of checkpoint 1");
        manager.checkpointAborted(2);
        assertThat(LocalFileSystem.INSTANCE.exists(file)).as("the file while checkpoint 1 is retained").isTrue();
        manager.checkpointCompleted(3, 3);
        manager.close();
        assertThat(LocalFileSystem.INSTANCE.exists(file)).as("the file once no checkpoint needs it").isFalse();
    }

    /** Without file merging a handle owns its file: the cancelled result's file is deleted. */
    @Test
    void aCancelledResultDeletesItsOwnFileWithoutMerging() throws Exception {
        CheckpointStreamFactory streams = FsCheckpointStorage.create(FsPath.of(dir), "job",
                io.duraflow.config.Configuration.fromMap(java.util.Map.of("state.storage.inline-threshold", "0")))
                .streamFactory(2);
        AtomicReference<StreamStateHandle> uploaded = new AtomicReference<>();
        cancelledWhileRunning(() -> {
            uploaded.set(write(streams, "000009.sst of checkpoint 2"));
            return List.of(incremental(2, uploaded.get()));
        }, streams);
        assertThat(Files.exists(((FileSegmentHandle) uploaded.get()).file().toLocalPath())).isFalse();
    }

    /** Runs a snapshot whose future is cancelled while its body runs, as when the task ends meanwhile. */
    private static SnapshotFuture cancelledWhileRunning(java.util.concurrent.Callable<List<KeyedStateHandle>> body,
            CheckpointStreamFactory streams) {
        AtomicReference<SnapshotFuture> self = new AtomicReference<>();
        SnapshotFuture future = SnapshotFuture.of(() -> {
            List<KeyedStateHandle> handles = body.call();
            self.get().cancel(false);
            return handles;
        }, () -> { }, streams);
        self.set(future);
        future.run();
        return future;
    }

    private static IncrementalKeyedStateHandle incremental(long checkpointId, StreamStateHandle sst) {
        return new IncrementalKeyedStateHandle("b", checkpointId, new KeyGroupRange(0, 7),
                List.of(new IncrementalKeyedStateHandle.SharedFile("000009.sst", sst, false)), List.of(),
                new io.duraflow.state.InlineStateHandle(new byte[] {1}));
    }

    private static StreamStateHandle write(CheckpointStreamFactory streams, String text) throws Exception {
        try (CheckpointOutputStream out = streams.createCheckpointOutputStream(CheckpointedStateScope.SHARED)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            return out.closeAndGetHandle();
        }
    }
}

package io.duraflow.state.filemerging;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.StreamStateHandles;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilePool} rule 1: a file an append is still creating (its header is written outside the
 * manager's lock, slow on HDFS) counts as held by that append, so appends that come meanwhile wait
 * for it instead of each opening a file of their own. Found by the benchmark: two or more
 * private-state files per checkpoint on one TaskManager where one does.
 */
class AppendWhileCreatingTest {
    @TempDir
    Path dir;

    @Test
    void appendsThatComeWhileTheFirstFileIsCreatedShareIt() throws Exception {
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch mayFinishCreating = new CountDownLatch(1);
        FileSystem slowCreate = (FileSystem) Proxy.newProxyInstance(FileSystem.class.getClassLoader(),
                new Class<?>[] {FileSystem.class}, (proxy, method, args) -> {
                    if (method.getName().equals("create") && creating.getCount() > 0) {
                        creating.countDown();
                        mayFinishCreating.await(10, TimeUnit.SECONDS);
                    }
                    try {
                        return method.invoke(LocalFileSystem.INSTANCE, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        CheckpointDirectories directories = CheckpointDirectories.of(FsPath.of(dir), "job");
        FileSegmentHandle[] handles = new FileSegmentHandle[3];
        ExecutorService writers = Executors.newFixedThreadPool(3);
        try (FileMergingSnapshotManager manager = new FileMergingSnapshotManager("job", "tm-1", "run1", slowCreate,
                directories, new FileMergingSettings(false, 32 << 20, false, 4, 2.0, 0, 1024), Runnable::run)) {
            SubtaskKey[] subtasks = {new SubtaskKey(1, 0, 3), new SubtaskKey(1, 1, 3), new SubtaskKey(1, 2, 3)};
            for (SubtaskKey subtask : subtasks) {
                manager.register(subtask);
            }
            Future<FileSegmentHandle> first = writers.submit(() -> privateState(manager.streamFactory(subtasks[0], 1), 0));
            assertThat(creating.await(10, TimeUnit.SECONDS)).isTrue();
            Future<FileSegmentHandle> second = writers.submit(() -> privateState(manager.streamFactory(subtasks[1], 1), 1));
            Future<FileSegmentHandle> third = writers.submit(() -> privateState(manager.streamFactory(subtasks[2], 1), 2));
            Thread.sleep(200); // the later appends reach the pool while the first file is created
            mayFinishCreating.countDown();
            handles[0] = first.get(10, TimeUnit.SECONDS);
            handles[1] = second.get(10, TimeUnit.SECONDS);
            handles[2] = third.get(10, TimeUnit.SECONDS);

            assertThat(java.util.Arrays.stream(handles).map(FileSegmentHandle::file).distinct()).hasSize(1);
            for (int i = 0; i < handles.length; i++) {
                assertThat(StreamStateHandles.readAll(handles[i])).containsOnly((byte) i);
            }
            assertThat(manager.spaceUsage().files()).isEqualTo(1);
        } finally {
            writers.shutdownNow();
        }
    }

    private static FileSegmentHandle privateState(CheckpointStreamFactory streams, int fill) throws Exception {
        try (CheckpointOutputStream out = streams.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            byte[] bytes = new byte[100];
            java.util.Arrays.fill(bytes, (byte) fill);
            out.write(bytes);
            StreamStateHandle handle = out.closeAndGetHandle();
            return (FileSegmentHandle) handle;
        }
    }
}

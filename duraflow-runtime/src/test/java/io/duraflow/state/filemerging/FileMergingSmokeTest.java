package io.duraflow.state.filemerging;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.StreamStateHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileMergingSmokeTest {
    @TempDir
    Path dir;

    @Test
    void streamsShareFilesAndReadBack() throws Exception {
        CheckpointDirectories directories = CheckpointDirectories.of(FsPath.of(dir), "job");
        FileMergingSettings settings = new FileMergingSettings(false, 32 << 20, false, 4, 2.0, 0, 1024);
        FileMergingSnapshotManager manager = new FileMergingSnapshotManager("job", "tm-1", "run1",
                LocalFileSystem.INSTANCE, directories, settings, Runnable::run);
        SubtaskKey subtask = new SubtaskKey(1, 0, 2);
        manager.register(subtask);
        CheckpointStreamFactory streams = manager.streamFactory(subtask, 1);
        Random random = new Random(7);
        List<byte[]> written = new ArrayList<>();
        List<StreamStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            byte[] bytes = new byte[i % 2 == 0 ? 100 + i : 5000 + i];
            random.nextBytes(bytes);
            try (CheckpointOutputStream out = streams.createCheckpointOutputStream(
                    i % 3 == 0 ? CheckpointedStateScope.SHARED : CheckpointedStateScope.EXCLUSIVE)) {
                out.write(bytes);
                handles.add(out.closeAndGetHandle());
            }
            written.add(bytes);
        }
        for (int i = 0; i < handles.size(); i++) {
            assertThat(StreamStateHandles.readAll(handles.get(i))).isEqualTo(written.get(i));
            assertThat(MergedFileFormat.verify(LocalFileSystem.INSTANCE, (FileSegmentHandle) handles.get(i))).isEmpty();
        }
        assertThat(handles.stream().map(h -> ((FileSegmentHandle) h).file()).distinct()).hasSize(2);
        manager.acknowledging(subtask, 1);
        manager.checkpointCompleted(1, 1);
        assertThat(manager.spaceUsage().files()).isEqualTo(2);
        manager.checkpointCompleted(2, 2);
        assertThat(manager.spaceUsage().files()).isZero();
        try (var listing = Files.walk(dir)) {
            assertThat(listing.filter(Files::isRegularFile)).isEmpty();
        }
        manager.close();
    }
}

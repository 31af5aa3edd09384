package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemCompletedCheckpointStoreTest {
    private static final String JOB = "job-1";
    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private final AtomicBoolean leading = new AtomicBoolean(true);

    @TempDir
    Path tmp;

    private FsPath pointers() {
        return FileSystemCompletedCheckpointStore.pointerDirectory(FsPath.of(tmp.resolve("ha/jobs/" + JOB)));
    }

    private FileSystemCompletedCheckpointStore store(int retained) {
        return new FileSystemCompletedCheckpointStore(fs, fs, pointers(), JOB, retained, leading::get);
    }

    private CompletedCheckpoint written(long id) throws Exception {
        CheckpointDirectories directories = CheckpointDirectories.of(FsPath.of(tmp.resolve("checkpoints")), JOB);
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(JOB, id, id * 100, id * 100 + 5, 128,
                CheckpointKind.CHECKPOINT, Map.of("op", new OperatorCheckpointState("op", 1, new byte[] {(byte) id},
                        Map.of())), directories.metadata(id));
        CheckpointMetadataFormat.write(fs, checkpoint);
        return checkpoint;
    }

    @Test
    void aNewInstanceOnTheSameDirectoryFindsTheRetainedCheckpoints() throws Exception {
        FileSystemCompletedCheckpointStore first = store(2);
        first.recover();
        first.add(written(1));
        first.add(written(2));
        List<CompletedCheckpoint> subsumed = first.add(written(3));
        assertThat(subsumed).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
        first.removeSubsumed(subsumed);

        FileSystemCompletedCheckpointStore afterRestart = store(2);

        assertThat(afterRestart.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L, 3L);
        assertThat(afterRestart.latest().orElseThrow()).isEqualTo(first.latest().orElseThrow());
        assertThat(afterRestart.recoveryWarnings()).isEmpty();
    }

    /**
     * HA storage on one file system, checkpoints on another (local HA directory, {@code hdfs://}
     * checkpoints): the pointers are read with the first, the metadata they name with the second.
     * Before, the store read both with the HA storage's, and a JobManager could restore no
     * checkpoint on HDFS ("the local file system cannot open hdfs://...", FileMergingHdfsIT).
     */
    @Test
    void thePointersAreReadWithTheHaFileSystemAndTheMetadataWithTheCheckpoints() throws Exception {
        FileSystem ha = reaching(tmp.resolve("ha"));
        FileSystem checkpoints = reaching(tmp.resolve("checkpoints"));
        FileSystemCompletedCheckpointStore first = new FileSystemCompletedCheckpointStore(ha, checkpoints, pointers(),
                JOB, 2, leading::get);
        first.add(written(1));
        first.add(written(2));

        FileSystemCompletedCheckpointStore afterRestart = new FileSystemCompletedCheckpointStore(ha, checkpoints,
                pointers(), JOB, 2, leading::get);

        assertThat(afterRestart.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L, 2L);
        assertThat(afterRestart.recoveryWarnings()).isEmpty();
    }

    /** The local file system, refusing every path outside {@code root}: a file system of its own, as far as a caller can tell. */
    private static FileSystem reaching(Path root) {
        return (FileSystem) Proxy.newProxyInstance(FileSystem.class.getClassLoader(), new Class<?>[] {FileSystem.class},
                (proxy, method, args) -> {
                    for (Object arg : args == null ? new Object[0] : args) {
                        if (arg instanceof FsPath path && !path.toLocalPath().startsWith(root)) {
                            throw new IllegalArgumentException("the file system of " + root + " cannot reach " + path);
                        }
                    }
                    try {
                        return method.invoke(LocalFileSystem.INSTANCE, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aCorruptLatestPointerFallsBackToThePreviousCheckpointAndSaysSo() throws Exception {
        FileSystemCompletedCheckpointStore first = store(2);
        first.add(written(1));
        first.add(written(2));
        FsPath pointer = first.pointerFile(2);
        byte[] bytes = fs.readFile(pointer);
        fs.writeFile(pointer, java.util.Arrays.copyOf(bytes, bytes.length - 3), WriteMode.OVERWRITE);

        FileSystemCompletedCheckpointStore afterRestart = store(2);

        assertThat(afterRestart.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
        assertThat(afterRestart.recoveryWarnings()).singleElement().asString()
                .contains("skipping checkpoint 2").contains(pointer.toString()).contains("torn");
    }

    @Test
    void aCorruptOrMissingMetadataFileFallsBackToThePreviousCheckpoint() throws Exception {
        FileSystemCompletedCheckpointStore first = store(3);
        first.add(written(1));
        CompletedCheckpoint second = written(2);
        first.add(second);
        first.add(written(3));
        byte[] bytes = fs.readFile(second.metadataFile());
        bytes[bytes.length - 1] ^= 1;
        fs.writeFile(second.metadataFile(), bytes, WriteMode.OVERWRITE);
        fs.deleteRecursively(first.latest().orElseThrow().directory());

        FileSystemCompletedCheckpointStore afterRestart = store(3);

        assertThat(afterRestart.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
        assertThat(afterRestart.recoveryWarnings()).hasSize(2);
        assertThat(afterRestart.recoveryWarnings().get(0)).contains("checksum mismatch")
                .contains(second.metadataFile().toString()).contains("falling back to checkpoint 1");
    }

    @Test
    void aJobManagerThatNoLongerLeadsWritesNothing() throws Exception {
        FileSystemCompletedCheckpointStore store = store(1);
        store.add(written(1));
        leading.set(false);

        assertThatThrownBy(() -> store.add(written(2)))
                .isInstanceOf(CompletedCheckpointStore.NotLeaderException.class)
                .hasMessageContaining("no longer the leader");

        assertThat(fs.exists(store.pointerFile(2))).isFalse();
        assertThat(store(1).recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
    }

    @Test
    void leftoverPointersOfSubsumedCheckpointsAreSubsumedAgainAfterRecovery() throws Exception {
        FileSystemCompletedCheckpointStore first = store(1);
        first.add(written(1));
        // A crash between the new pointer and the removal of the old one leaves both.
        assertThat(first.add(written(2))).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
        assertThat(fs.exists(first.pointerFile(1))).isTrue();

        FileSystemCompletedCheckpointStore afterRestart = store(1);
        assertThat(afterRestart.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L, 2L);
        assertThat(afterRestart.latest().orElseThrow().checkpointId()).isEqualTo(2);

        List<CompletedCheckpoint> subsumed = afterRestart.add(written(3));
        assertThat(subsumed).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L, 2L);
        afterRestart.removeSubsumed(subsumed);
        assertThat(fs.list(pointers())).hasSize(1);
    }

    @Test
    void aSubsumedCheckpointLeavesTheStoreAtOnceAndItsPointerWhenRemoved() throws Exception {
        FileSystemCompletedCheckpointStore store = store(1);
        store.add(written(1));

        List<CompletedCheckpoint> subsumed = store.add(written(2));

        assertThat(store.retained()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L);
        assertThat(fs.exists(store.pointerFile(1))).as("kept until removed").isTrue();
        leading.set(false);
        store.removeSubsumed(subsumed);
        assertThat(fs.exists(store.pointerFile(1))).as("a JobManager that no longer leads deletes nothing").isTrue();
        leading.set(true);
        store.removeSubsumed(subsumed);
        assertThat(fs.exists(store.pointerFile(1))).isFalse();
        assertThat(store(1).recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L);
    }
}

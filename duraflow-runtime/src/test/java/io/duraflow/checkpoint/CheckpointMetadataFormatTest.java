package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointMetadataFormatTest {
    private final FileSystem fs = LocalFileSystem.INSTANCE;

    @TempDir
    Path tmp;

    private CompletedCheckpoint checkpoint(FsPath metadataFile) {
        FsPath stateFile = FsPath.parse("hdfs://namenode:8020/checkpoints/j/chk-3/state-1");
        KeyGroupsStateHandle keyed = new KeyGroupsStateHandle(new KeyGroupRange(4, 6), new long[] {0, 17, 40},
                new FileSegmentHandle(stateFile, 128, 64));
        OperatorStateHandle splits = new OperatorStateHandle(Map.of(
                "splits", new OperatorStateHandle.StateList(OperatorStateHandle.Distribution.SPLIT, new long[] {0, 9}),
                "watermark", new OperatorStateHandle.StateList(OperatorStateHandle.Distribution.UNION, new long[] {20})),
                new InlineStateHandle(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                        21, 22, 23, 24}));
        IncrementalKeyedStateHandle incremental = new IncrementalKeyedStateHandle("backend-7", 3,
                new KeyGroupRange(7, 9),
                List.of(new IncrementalKeyedStateHandle.SharedFile("000011.sst",
                                new FileSegmentHandle(FsPath.parse("hdfs://namenode:8020/checkpoints/j/shared/a"), 0, 900),
                                true),
                        new IncrementalKeyedStateHandle.SharedFile("000014.sst",
                                new FileSegmentHandle(FsPath.parse("hdfs://namenode:8020/checkpoints/j/shared/b"), 0, 300),
                                false)),
                List.of(new IncrementalKeyedStateHandle.PrivateFile("MANIFEST-000005",
                        new InlineStateHandle(new byte[] {9, 9}))),
                new InlineStateHandle(new byte[] {1, 2, 3}));
        return new CompletedCheckpoint("j", 3, 1_000, 1_250, 128, CheckpointKind.CHECKPOINT, Map.of(
                "source", new OperatorCheckpointState("source", 2, new byte[] {42}, Map.of(
                        1, new OperatorSubtaskState(List.of(), List.of(splits)))),
                "sum", new OperatorCheckpointState("sum", 3, null, Map.of(
                        0, new OperatorSubtaskState(List.of(keyed), List.of()),
                        1, new OperatorSubtaskState(List.of(incremental), List.of()))),
                "map", new OperatorCheckpointState("map", 3, null, Map.of())), metadataFile);
    }

    @Test
    void everyKindOfHandleSurvivesAWriteAndARead() throws Exception {
        FsPath file = FsPath.of(tmp.resolve("chk-3/_metadata"));
        CompletedCheckpoint written = checkpoint(file);

        CheckpointMetadataFormat.write(fs, written);
        CompletedCheckpoint read = CheckpointMetadataFormat.read(fs, file, "j", 3);

        assertThat(read).isEqualTo(written);
        assertThat(read.operators().get("source").coordinatorState()).containsExactly(42);
        assertThat(read.operators().get("sum").coordinatorStateBytes()).isEmpty();
        assertThat(CheckpointMetadataFormat.encode(read)).isEqualTo(CheckpointMetadataFormat.encode(written));
        assertThatThrownBy(() -> CheckpointMetadataFormat.write(fs, written))
                .isInstanceOf(FileAlreadyExistsException.class);
    }

    @Test
    void theTaskSnapshotCodecRoundTrips() {
        TaskStateSnapshot snapshot = new TaskStateSnapshot(Map.of("sum", checkpoint(FsPath.parse("/x/_metadata"))
                .operators().get("sum").subtasks().get(0)));

        assertThat(StateHandleCodec.fromProto(StateHandleCodec.toProto(snapshot))).isEqualTo(snapshot);
    }

    @Test
    void theFileIsExactlyTheDocumentedBytes() {
        CompletedCheckpoint smallest = new CompletedCheckpoint("j", 1, 1_000, 1_005, 128, CheckpointKind.CHECKPOINT,
                Map.of(), FsPath.parse("/c/j/chk-1/_metadata"));

        assertThat(HexFormat.of().formatHex(CheckpointMetadataFormat.encode(smallest))).isEqualTo(
                "4446434d" + "00000002" // magic "DFCM", version 2
                        + "00000010" + "6e32b47b" // payload length 16, CRC32C
                        + "0a016a" + "1001" + "18e807" + "208001" + "2801" + "38ed07");
    }

    @Test
    void aTornFileIsAnErrorNamingTheFile() throws Exception {
        FsPath file = FsPath.of(tmp.resolve("chk-3/_metadata"));
        byte[] bytes = CheckpointMetadataFormat.encode(checkpoint(file));
        for (int length : new int[] {0, 7, 16, bytes.length - 1}) {
            fs.writeFile(file, Arrays.copyOf(bytes, length), WriteMode.OVERWRITE);

            assertThatThrownBy(() -> CheckpointMetadataFormat.read(fs, file, "j", 3))
                    .isInstanceOf(CorruptCheckpointFileException.class)
                    .hasMessageStartingWith("corrupt checkpoint metadata file " + file + ": torn");
        }
    }

    @Test
    void aFlippedBitIsACheckumMismatch() throws Exception {
        FsPath file = FsPath.of(tmp.resolve("chk-3/_metadata"));
        byte[] bytes = CheckpointMetadataFormat.encode(checkpoint(file));
        bytes[bytes.length - 5] ^= 0x10;
        fs.writeFile(file, bytes, WriteMode.OVERWRITE);

        assertThatThrownBy(() -> CheckpointMetadataFormat.read(fs, file, "j", 3))
                .isInstanceOf(CorruptCheckpointFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void anotherFormatAnotherVersionOrAnotherCheckpointIsRejected() throws Exception {
        FsPath file = FsPath.of(tmp.resolve("chk-3/_metadata"));
        byte[] good = CheckpointMetadataFormat.encode(checkpoint(file));

        byte[] otherMagic = good.clone();
        otherMagic[3] = 'V';
        fs.writeFile(file, otherMagic, WriteMode.OVERWRITE);
        assertThatThrownBy(() -> CheckpointMetadataFormat.read(fs, file, "j", 3)).hasMessageContaining(
                "not a checkpoint metadata file");

        byte[] otherVersion = good.clone();
        otherVersion[7] = 3;
        fs.writeFile(file, otherVersion, WriteMode.OVERWRITE);
        assertThatThrownBy(() -> CheckpointMetadataFormat.read(fs, file, "j", 3)).hasMessageContaining(
                "format version 3, this Duraflow reads version 1 to 2");

        fs.writeFile(file, good, WriteMode.OVERWRITE);
        assertThatThrownBy(() -> CheckpointMetadataFormat.read(fs, file, "j", 4))
                .isInstanceOf(CorruptCheckpointFileException.class)
                .hasMessageContaining("holds checkpoint 3 of job j, expected checkpoint 4 of job j");
    }

    @Test
    void version1FilesAreStillRead() throws Exception {
        FsPath file = FsPath.of(tmp.resolve("chk-3/_metadata"));
        CompletedCheckpoint written = checkpoint(file);
        // Version 1 wrote every file as a URI: the same payload as version 2 for files outside the directory.
        byte[] bytes = CheckpointMetadataFormat.encode(written);
        bytes[7] = 1;
        fs.writeFile(file, bytes, WriteMode.OVERWRITE);

        assertThat(CheckpointMetadataFormat.read(fs, file, "j", 3)).isEqualTo(written);
    }

    @Test
    void filesInsideTheDirectoryAreRecordedRelativeAndResolveWhereTheDirectoryIsNow() throws Exception {
        FsPath directory = FsPath.of(tmp.resolve("savepoints/savepoint-j-3"));
        FsPath inside = directory.resolve("state-1");
        FsPath outside = FsPath.parse("hdfs://namenode:8020/checkpoints/j/shared/a");
        CompletedCheckpoint savepoint = new CompletedCheckpoint("j", 3, 1_000, 1_250, 128, CheckpointKind.SAVEPOINT,
                Map.of("sum", new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(
                        List.of(new KeyGroupsStateHandle(new KeyGroupRange(0, 0), new long[] {0},
                                new FileSegmentHandle(inside, 0, 10))),
                        List.of(new OperatorStateHandle(Map.of(), new FileSegmentHandle(outside, 5, 6))))))),
                directory.resolve("_metadata"));
        byte[] bytes = CheckpointMetadataFormat.encode(savepoint);
        assertThat(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1))
                .contains("state-1").doesNotContain(directory.toString()).contains(outside.toUri().toString());

        FsPath moved = FsPath.of(tmp.resolve("elsewhere/renamed"));
        fs.writeFile(moved.resolve("_metadata"), bytes, WriteMode.EXCLUSIVE);
        CompletedCheckpoint read = CheckpointMetadataFormat.read(fs, moved.resolve("_metadata"));

        OperatorSubtaskState state = read.operators().get("sum").subtasks().get(0);
        assertThat(((FileSegmentHandle) ((KeyGroupsStateHandle) state.keyedState().get(0)).stream()).file())
                .isEqualTo(moved.resolve("state-1"));
        assertThat(((FileSegmentHandle) state.operatorState().get(0).stream()).file()).isEqualTo(outside);
    }

    @Test
    void aRelativeFileOutsideAMetadataFileIsRejected() {
        FsPath base = FsPath.parse("/sp");
        var data = StateHandleCodec.toProto(new OperatorSubtaskState(List.of(), List.of(new OperatorStateHandle(
                Map.of(), new FileSegmentHandle(base.resolve("f"), 0, 1)))), base);

        assertThat(StateHandleCodec.fromProto(data, FsPath.parse("/moved")).operatorState().get(0).stream())
                .isEqualTo(new FileSegmentHandle(FsPath.parse("/moved/f"), 0, 1));
        assertThatThrownBy(() -> StateHandleCodec.fromProto(data))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relative file 'f' outside a _metadata file");
    }
}

package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.filemerging.FileMergingSettings;
import io.duraflow.state.filemerging.FileMergingSnapshotManager;
import io.duraflow.state.filemerging.SubtaskKey;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of {@link CheckpointVerifier} over checkpoints whose state is in merged files. */
class CheckpointVerifierTest {
    private static final String JOB = "job-1";

    @TempDir
    Path tmp;

    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private CheckpointDirectories directories;
    private FileMergingSnapshotManager manager;
    private final SubtaskKey subtask = new SubtaskKey(0, 0, 1);

    @BeforeEach
    void setUp() {
        directories = CheckpointDirectories.of(FsPath.of(tmp), JOB);
        manager = new FileMergingSnapshotManager(JOB, "tm-1", "r1", fs, directories,
                new FileMergingSettings(true, 1 << 20, false, 4, 0, 0, 1024), Runnable::run);
        manager.register(subtask);
    }

    /** Checkpoint {@code id}: {@code streams} operator-state streams of 100 bytes each, in merged files, and its metadata. */
    private CompletedCheckpoint checkpoint(long id, int streams) throws IOException {
        CheckpointStreamFactory factory = manager.streamFactory(subtask, id);
        List<OperatorStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            try (CheckpointOutputStream out = factory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
                out.write(new byte[100]);
                handles.add(new OperatorStateHandle(Map.of(), out.closeAndGetHandle()));
            }
        }
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(JOB, id, id, id, 8, CheckpointKind.CHECKPOINT,
                Map.of("source", new OperatorCheckpointState("source", 1, null, Map.of(0,
                        new OperatorSubtaskState(List.of(), handles)))), directories.metadata(id),
                manager.acknowledging(subtask, id));
        CheckpointMetadataFormat.write(fs, checkpoint);
        return checkpoint;
    }

    private static FsPath fileOf(CompletedCheckpoint checkpoint) {
        StreamStateHandle stream = checkpoint.operators().get("source").subtasks().get(0).operatorState().get(0).stream();
        return ((FileSegmentHandle) stream).file();
    }

    @Test
    void rules2To4RetainedCheckpointsInMergedFilesAreCleanAndCounted() throws IOException {
        CompletedCheckpoint checkpoint = checkpoint(1, 5);

        CheckpointVerifier.Report report = CheckpointVerifier.verify(fs, directories.jobDirectory());

        assertThat(report.isClean()).as(report.problems().toString()).isTrue();
        assertThat(report.checkpointIds()).containsExactly(1L);
        assertThat(report.mergedFiles()).isEqualTo(1);
        assertThat(report.segments()).isEqualTo(5);
        assertThat(report.referencedFiles()).isEqualTo(2); // the merged file and _metadata
        assertThat(report.referencedBytes()).isEqualTo(500);
        assertThat(report.bytesOnDisk()).isEqualTo(Files.size(tmp.resolve(JOB).resolve("chk-1").resolve("_metadata"))
                + fs.status(fileOf(checkpoint)).lengthBytes());
    }

    @Test
    void rule3AFlippedByteInASegmentIsCorruptNamingTheFile() throws IOException {
        FsPath file = fileOf(checkpoint(1, 3));
        try (RandomAccessFile raw = new RandomAccessFile(file.toLocalPath().toFile(), "rw")) {
            raw.seek(8 + 116 + 50); // inside the second segment (each is 100 bytes and a 16-byte trailer)
            raw.write(0x5a);
        }

        CheckpointVerifier.Report report = CheckpointVerifier.verify(fs, directories.jobDirectory());

        assertThat(report.isClean()).isFalse();
        assertThat(report.corrupt()).containsOnlyKeys(file);
        assertThat(report.problems()).singleElement().asString().startsWith("corrupt: ").contains(file.toString())
                .contains("CRC32C");
    }

    @Test
    void rules2And4AMissingMergedFileAndAnOrphanAreReported() throws IOException {
        FsPath file = fileOf(checkpoint(1, 2));
        Files.delete(file.toLocalPath());
        FsPath orphan = directories.shared().resolve("leftover");
        fs.writeFile(orphan, new byte[3], WriteMode.EXCLUSIVE);

        CheckpointVerifier.Report report = CheckpointVerifier.verify(fs, directories.jobDirectory());

        assertThat(report.scan().missing()).containsOnlyKeys(file);
        assertThat(report.scan().orphans()).containsExactly(orphan);
        assertThat(report.corrupt()).isEmpty();
        assertThat(report.problems()).hasSize(2);
    }

    @Test
    void rule1AnUnreadableMetadataIsCorruptAndNothingIsCalledAnOrphan() throws IOException {
        checkpoint(1, 1);
        FsPath metadata = directories.metadata(2);
        fs.writeFile(metadata, new byte[] {1, 2, 3}, WriteMode.EXCLUSIVE);
        fs.writeFile(directories.checkpoint(2).resolve("state"), new byte[3], WriteMode.EXCLUSIVE);

        CheckpointVerifier.Report report = CheckpointVerifier.verify(fs, directories.jobDirectory());

        assertThat(report.corrupt()).containsOnlyKeys(metadata);
        assertThat(report.scan().orphans()).isEmpty();
        assertThat(report.checkpointIds()).containsExactly(1L);
    }

    @Test
    void theMetadataNamesTheFileMergingDirectoriesTheTasksNamed() throws IOException {
        CompletedCheckpoint checkpoint = checkpoint(1, 1);

        CompletedCheckpoint read = CheckpointMetadataFormat.read(fs, directories.metadata(1), JOB, 1);

        assertThat(read.fileMergingDirectories()).isEqualTo(checkpoint.fileMergingDirectories())
                .isEqualTo(Set.of(directories.sharedFileMergingDirectory(subtask.sharedDirectoryName()),
                        manager.privateDirectory()));
    }
}

package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.IncrementalKeyedStateHandle.PrivateFile;
import io.duraflow.state.IncrementalKeyedStateHandle.SharedFile;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of {@link CheckpointDirectoryScan}, over a real local directory. */
class CheckpointDirectoryScanTest {
    private static final String JOB = "job-1";

    @TempDir
    Path tmp;

    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private CheckpointDirectories directories;

    @BeforeEach
    void setUp() {
        directories = CheckpointDirectories.of(FsPath.of(tmp), JOB);
    }

    private FsPath write(FsPath file, int length) throws IOException {
        fs.writeFile(file, new byte[length], WriteMode.OVERWRITE);
        return file;
    }

    /** Checkpoint {@code id} with one incremental handle: {@code shared} reused or not, a MANIFEST in chk-n. */
    private CompletedCheckpoint checkpoint(long id, FsPath shared, long sharedLength) throws IOException {
        FsPath manifest = write(directories.checkpoint(id).resolve("MANIFEST"), 5);
        IncrementalKeyedStateHandle handle = new IncrementalKeyedStateHandle("b", id, new KeyGroupRange(0, 7),
                List.of(new SharedFile("000001.sst", new FileSegmentHandle(shared, 0, sharedLength), id > 1)),
                List.of(new PrivateFile("MANIFEST", new FileSegmentHandle(manifest, 0, 5))),
                new InlineStateHandle(new byte[] {1}));
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(JOB, id, id, id, 8, CheckpointKind.CHECKPOINT,
                Map.of("sum", new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(
                        List.of(handle), List.of())))), directories.metadata(id));
        CheckpointMetadataFormat.write(fs, checkpoint);
        return checkpoint;
    }

    @Test
    void rules1And3ADirectoryHoldingExactlyWhatTheRetainedCheckpointsReferToIsClean() throws IOException {
        FsPath sst = write(directories.shared().resolve("b-000001.sst"), 10);
        List<CompletedCheckpoint> retained = List.of(checkpoint(2, sst, 10), checkpoint(3, sst, 10));

        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fs, directories, retained);

        assertThat(scan.isClean()).isTrue();
        assertThat(scan.describe()).isEmpty();
        assertThat(scan.emptyDirectories()).isEmpty();
    }

    @Test
    void rule2AReferencedFileThatIsGoneOrShorterThanItsSegmentIsMissing() throws IOException {
        FsPath gone = directories.shared().resolve("b-000001.sst");
        FsPath shortFile = write(directories.shared().resolve("b-000002.sst"), 4);
        CompletedCheckpoint first = checkpoint(1, gone, 10);
        CompletedCheckpoint second = checkpoint(2, shortFile, 10);

        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fs, directories, List.of(first, second));

        assertThat(scan.missing()).containsOnlyKeys(gone, shortFile);
        assertThat(scan.describe()).containsExactly(
                "missing: " + gone + " (does not exist)",
                "missing: " + shortFile + " (4 bytes, a segment ends at byte 10)");
        assertThat(scan.orphans()).isEmpty();
    }

    @Test
    void rules3And4EveryUnreferencedFileIsAnOrphanSavepointsExceptedAndEmptyDirectoriesAreListedDeepestFirst()
            throws IOException {
        FsPath sst = write(directories.shared().resolve("b-000001.sst"), 10);
        CompletedCheckpoint retained = checkpoint(3, sst, 10);
        FsPath orphanShared = write(directories.shared().resolve("b-000009.sst"), 10);
        FsPath subsumed = write(directories.checkpoint(2).resolve("state"), 1);
        FsPath merged = write(directories.taskOwned().resolve("tm-1/merged-1"), 1);
        write(directories.jobDirectory().resolve("savepoint-job-1-4/_metadata"), 1);
        fs.mkdirs(directories.checkpoint(5).resolve("sub"));

        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fs, directories, List.of(retained));

        assertThat(scan.orphans()).containsExactly(subsumed, orphanShared, merged);
        assertThat(scan.missing()).isEmpty();
        assertThat(scan.isClean()).isFalse();
        assertThat(scan.emptyDirectories()).containsExactly(directories.checkpoint(5).resolve("sub"),
                directories.checkpoint(5));
    }

    @Test
    void theRetainedCheckpointsOfAJobWhosePointersAreGoneAreThoseWithMetadata() throws IOException {
        FsPath sst = write(directories.shared().resolve("b-000001.sst"), 10);
        checkpoint(4, sst, 10);
        checkpoint(12, sst, 10);
        write(directories.checkpoint(13).resolve("state"), 1); // never completed

        assertThat(CheckpointDirectoryScan.checkpointsWithMetadata(fs, directories, JOB))
                .extracting(CompletedCheckpoint::checkpointId).containsExactly(4L, 12L);

        Files.write(tmp.resolve(JOB).resolve("chk-12/_metadata"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> CheckpointDirectoryScan.checkpointsWithMetadata(fs, directories, JOB))
                .isInstanceOf(IOException.class).hasMessageContaining("chk-12");
    }

    @Test
    void aDirectoryThatDoesNotExistHasNoFiles() throws IOException {
        assertThat(CheckpointDirectoryScan.filesUnder(fs, directories.shared())).isEmpty();
        assertThat(CheckpointDirectoryScan.scan(fs, directories, List.of()).isClean()).isTrue();
    }
}

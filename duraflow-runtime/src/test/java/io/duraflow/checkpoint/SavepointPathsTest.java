package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SavepointPaths}' rules: what a {@code --from-savepoint} path names, and its one-line errors. */
class SavepointPathsTest {
    @TempDir
    Path tmp;

    private Path savepoint() throws Exception {
        Path directory = tmp.resolve("savepoint-j-4");
        CheckpointMetadataFormat.write(LocalFileSystem.INSTANCE, new CompletedCheckpoint("j", 4, 1, 2, 128,
                CheckpointKind.SAVEPOINT, Map.of(), FsPath.of(directory.resolve("_metadata"))));
        return directory;
    }

    @Test
    void aDirectoryNamesItsMetadataAndAFileIsTakenForOne() throws Exception {
        Path directory = savepoint();
        FsPath metadata = FsPath.of(directory.resolve("_metadata"));

        assertThat(SavepointPaths.metadataFile(directory.toString())).isEqualTo(metadata);
        assertThat(SavepointPaths.metadataFile(metadata.toUri().toString())).isEqualTo(metadata);
        assertThat(SavepointPaths.read(directory.toString()).checkpointId()).isEqualTo(4);
    }

    @Test
    void aMissingPathADirectoryWithoutMetadataAndACorruptFileAreErrorsNamingThem() throws Exception {
        Path missing = tmp.resolve("missing");
        assertThatThrownBy(() -> SavepointPaths.read(missing.toString()))
                .isInstanceOf(SavepointPaths.InvalidRestorePathException.class)
                .hasMessage("no savepoint or checkpoint at " + missing + ": it does not exist; give a savepoint"
                        + " directory, a retained chk-<n> directory or its _metadata");
        Path empty = Files.createDirectories(tmp.resolve("chk-3"));
        assertThatThrownBy(() -> SavepointPaths.read(empty.toString()))
                .hasMessageStartingWith(empty + " is not a savepoint or checkpoint: it has no _metadata");
        Path corrupt = Files.write(tmp.resolve("_metadata"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> SavepointPaths.read(corrupt.toString()))
                .hasMessage("corrupt checkpoint metadata file " + corrupt + ": torn: 3 bytes, shorter than the"
                        + " 16-byte header");
        assertThatThrownBy(() -> SavepointPaths.read("unknownfs://x/y"))
                .hasMessageStartingWith("cannot restore from 'unknownfs://x/y': ");
    }
}

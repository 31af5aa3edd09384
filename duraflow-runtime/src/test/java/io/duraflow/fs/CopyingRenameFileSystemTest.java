package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test double that stands for object stores keeps the contract, except the atomic rename it disclaims. */
class CopyingRenameFileSystemTest extends FileSystemContractTest {
    @TempDir
    Path tempDir;

    @Override
    protected FileSystem createFileSystem() {
        return new CopyingRenameFileSystem();
    }

    @Override
    protected FsPath createEmptyDirectory() throws IOException {
        return FsPath.of(Files.createDirectories(tempDir.resolve("contract")));
    }

    @Test
    void renameIsNotAtomic() {
        assertThat(fs.isRenameAtomic()).isFalse();
    }
}

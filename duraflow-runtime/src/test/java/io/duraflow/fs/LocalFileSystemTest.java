package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileSystemTest extends FileSystemContractTest {
    @TempDir
    Path tempDir;

    @Override
    protected FileSystem createFileSystem() {
        return LocalFileSystem.INSTANCE;
    }

    @Override
    protected FsPath createEmptyDirectory() throws IOException {
        return FsPath.of(Files.createDirectories(tempDir.resolve("contract")));
    }

    @Test
    void renameIsAtomic() {
        assertThat(fs.isRenameAtomic()).isTrue();
    }

    @Test
    void deleteRecursivelyDeletesASymbolicLinkNotWhatItPointsTo() throws IOException {
        Path outside = Files.createDirectories(tempDir.resolve("outside"));
        Files.writeString(outside.resolve("precious"), "keep");
        Path tree = Files.createDirectories(tempDir.resolve("contract/tree"));
        Files.createSymbolicLink(tree.resolve("link"), outside);

        assertThat(fs.deleteRecursively(FsPath.of(tree))).isTrue();

        assertThat(tree).doesNotExist();
        assertThat(outside.resolve("precious")).hasContent("keep");
    }

    @Test
    void pathsOfOtherSchemesAreRefusedNamingThePath() {
        FsPath remote = FsPath.parse("hdfs://namenode:8020/ha/f");

        assertThatThrownBy(() -> fs.open(remote))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hdfs://namenode:8020/ha/f");
    }

    @Test
    void filesAreWrittenWhereTheirPlainPathSays() throws IOException {
        fs.writeFile(root.resolve("a/b"), "x".getBytes(), WriteMode.EXCLUSIVE);

        assertThat(tempDir.resolve("contract/a/b")).hasContent("x");
    }
}

package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FileSystemsTest {
    @Test
    void localPathsGetTheLocalFileSystem() {
        assertThat(FileSystems.get(FsPath.parse("/data"))).isSameAs(LocalFileSystem.INSTANCE);
        assertThat(FileSystems.get(FsPath.parse("file:///data"))).isSameAs(LocalFileSystem.INSTANCE);
        assertThat(FileSystems.schemes()).contains("file");
    }

    @Test
    void aSchemeWithoutAFileSystemIsAOneLineErrorNamingIt() {
        FsPath hdfs = FsPath.parse("hdfs://namenode:8020/checkpoints");

        assertThatThrownBy(() -> FileSystems.get(hdfs))
                .isInstanceOf(FileSystems.UnsupportedFileSystemException.class)
                .hasMessageStartingWith("no file system for scheme 'hdfs' (in hdfs://namenode:8020/checkpoints)")
                .hasMessageContaining("needs the duraflow-hadoop jar on the class path")
                .hasMessageNotContaining("\n")
                .satisfies(e -> assertThat(((FileSystems.UnsupportedFileSystemException) e).path()).isEqualTo(hdfs));
    }
}

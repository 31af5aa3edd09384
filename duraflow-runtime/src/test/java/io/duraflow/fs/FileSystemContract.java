package io.duraflow.fs;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;

/**
 * What the parts of the {@link FileSystem} contract share: the file system under test, the empty
 * directory each test gets on it ({@link FileSystemContractTest} gives both), and the helpers that
 * write and read back small text files.
 */
public interface FileSystemContract {
    /** The file system under test. */
    FileSystem fs();

    /** An empty directory on it, private to one test. */
    FsPath root();

    default byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    default String read(FsPath file) throws IOException {
        return new String(fs().readFile(file), UTF_8);
    }

    default void write(FsPath file, String text) throws IOException {
        fs().writeFile(file, bytes(text), WriteMode.EXCLUSIVE);
    }
}

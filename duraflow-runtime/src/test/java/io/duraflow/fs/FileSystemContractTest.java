package io.duraflow.fs;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every {@link FileSystem} must do, as docs/design/file-systems.md says, in four parts:
 * {@link FileSystemCreateContract}, {@link FileSystemReadContract},
 * {@link FileSystemNamespaceContract} and {@link FileSystemRenameContract}. An implementation's test
 * extends this class and gives a file system and an empty directory on it for each test; the
 * Hadoop-backed implementation runs the same tests against an in-process HDFS.
 */
public abstract class FileSystemContractTest implements FileSystemCreateContract, FileSystemReadContract,
        FileSystemNamespaceContract, FileSystemRenameContract {
    protected FileSystem fs;
    protected FsPath root;

    /** The file system under test. */
    protected abstract FileSystem createFileSystem() throws IOException;

    /** An empty directory on it, private to one test. */
    protected abstract FsPath createEmptyDirectory() throws IOException;

    @BeforeEach
    void setUpFileSystem() throws IOException {
        fs = createFileSystem();
        root = createEmptyDirectory();
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        fs.deleteRecursively(root);
    }

    @Override
    public FileSystem fs() {
        return fs;
    }

    @Override
    public FsPath root() {
        return root;
    }
}

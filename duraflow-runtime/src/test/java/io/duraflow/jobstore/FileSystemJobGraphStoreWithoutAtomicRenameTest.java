package io.duraflow.jobstore;

import io.duraflow.fs.CopyingRenameFileSystem;
import io.duraflow.fs.FsPath;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The job graph store keeps its contract on a file system whose rename is a copy and a delete. */
class FileSystemJobGraphStoreWithoutAtomicRenameTest extends JobGraphStoreContractTest {
    @TempDir
    Path tempDir;

    @Override
    protected JobGraphStore createStore() {
        return new FileSystemJobGraphStore(new CopyingRenameFileSystem(), FsPath.of(tempDir.resolve("job-graphs")));
    }
}

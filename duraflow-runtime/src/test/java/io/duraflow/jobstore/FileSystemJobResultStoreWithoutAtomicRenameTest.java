package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.CopyingRenameFileSystem;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job result store on a file system whose rename is a copy and a delete (object stores): the
 * whole store contract holds, and a crash in the middle of the rename that marks an entry clean
 * loses nothing.
 */
class FileSystemJobResultStoreWithoutAtomicRenameTest extends JobResultStoreContractTest {
    @TempDir
    Path tempDir;
    private final CopyingRenameFileSystem fileSystem = new CopyingRenameFileSystem();

    @Override
    protected JobResultStore createStore(boolean deleteOnCommit, Duration cleanTtlOrNull, Clock clock) {
        return new FileSystemJobResultStore(fileSystem, FsPath.of(tempDir.resolve("results")), deleteOnCommit,
                cleanTtlOrNull, clock);
    }

    @Test
    void aCrashHalfWayThroughTheCleanRenameLeavesTheResultCleanAndReadable() throws IOException {
        JobResultStore store = createStore(false, null, new ManualClock(TestEntries.ENDED_AT_MS));
        JobResultEntry entry = TestEntries.finished("j1");
        store.createDirtyResult(entry);

        fileSystem.failNextRenameAfterCopy();
        assertThatThrownBy(() -> store.markResultAsClean("j1")).hasMessageContaining("injected crash");

        JobResultStore restarted = createStore(false, null, new ManualClock(TestEntries.ENDED_AT_MS));
        assertThat(restarted.hasCleanJobResultEntry("j1")).isTrue();
        assertThat(restarted.getResult("j1")).contains(entry);
        assertThat(restarted.getDirtyResults()).as("the stale dirty file is cleaned up, not redone").isEmpty();
        assertThat(tempDir.resolve("results/j1.dirty.json")).doesNotExist();
        restarted.markResultAsClean("j1");
        assertThat(restarted.getResult("j1")).contains(entry);
    }
}

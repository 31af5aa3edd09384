package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.APPEND_BUFFER_BYTES;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static io.duraflow.state.storage.CheckpointedStateScope.EXCLUSIVE;
import static io.duraflow.state.storage.CheckpointedStateScope.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.duraflow.fs.FsPath;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilePool} rules 3 and 6: a pool keeps at most {@code max-file-pool-size} open files, a
 * non-blocking pool at its bound never waits, and a private-state file takes at most {@code
 * max-subtasks-per-file} subtasks, blocking or not. Single-threaded: a stream larger than the append
 * buffer holds its file until it is closed, which is how concurrent writers are made here.
 */
class FilePoolBoundsTest {
    /** Larger than the append buffer: the stream holds a file from its first write. */
    private static final int LARGE = APPEND_BUFFER_BYTES + 1000;

    @TempDir
    Path tmp;

    private MergingFixture fixture;
    private final List<FileMergingSnapshotManager> managers = new ArrayList<>();
    private final SubtaskKey a = new SubtaskKey(1, 0, 4);
    private final SubtaskKey b = new SubtaskKey(1, 1, 4);
    private final SubtaskKey c = new SubtaskKey(1, 2, 4);
    private final SubtaskKey d = new SubtaskKey(1, 3, 4);

    @BeforeEach
    void setUp() {
        fixture = new MergingFixture(tmp);
    }

    @AfterEach
    void close() {
        managers.forEach(FileMergingSnapshotManager::close);
    }

    private FileMergingSnapshotManager start(boolean blocking, int maxSubtasksPerFile, int maxFilePoolSize,
            SubtaskKey... subtasks) {
        FileMergingSettings settings = new FileMergingSettings(true, 1 << 20, blocking, maxSubtasksPerFile, 2.0, 0,
                APPEND_BUFFER_BYTES, maxFilePoolSize);
        FileMergingSnapshotManager manager = fixture.manager("run1", settings, subtasks);
        managers.add(manager);
        return manager;
    }

    /** A stream of {@code subtask} that holds its file until it is closed. */
    private static CheckpointOutputStream holding(FileMergingSnapshotManager manager, SubtaskKey subtask,
            CheckpointedStateScope scope, int seed) throws IOException {
        CheckpointOutputStream out = manager.streamFactory(subtask, 1).createCheckpointOutputStream(scope);
        out.write(bytes(LARGE, seed));
        return out;
    }

    @Test
    void aNonBlockingPoolAtItsBoundGivesAStreamAFileOfItsOwnAndKeepsOnlyItsBound() throws IOException {
        FileMergingSnapshotManager manager = start(false, 4, 2, a);
        List<CheckpointOutputStream> streams = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            streams.add(holding(manager, a, SHARED, i)); // the third finds both pooled files held: it never waits
        }
        Set<FsPath> files = new HashSet<>();
        for (CheckpointOutputStream out : streams) {
            files.add(fileOf(out.closeAndGetHandle()));
        }
        assertThat(files).as("a file per concurrent stream").hasSize(3);
        SpaceUsage usage = manager.spaceUsage();
        assertThat(usage.openFiles()).as("open files: the pool's bound, the unpooled one closed after its segment")
                .isEqualTo(2);
        assertThat(usage.pooledFiles()).isEqualTo(2);
        assertThat(usage.unpooledFiles()).isEqualTo(1);

        StreamStateHandle next = write(manager, a, 2, SHARED, bytes(1000, 9));
        assertThat(files).as("a later stream appends to a pooled file").contains(fileOf(next));
        assertThat(manager.spaceUsage().files()).isEqualTo(3);
    }

    @Test
    void withoutBlockingAPrivateFileTakesAtMostMaxSubtasksPerFileSubtasks() throws IOException {
        FileMergingSnapshotManager manager = start(false, 2, 16, a, b, c);
        FsPath ofA = fileOf(write(manager, a, 1, EXCLUSIVE, bytes(1000, 1)));
        FsPath ofB = fileOf(write(manager, b, 1, EXCLUSIVE, bytes(1000, 2)));
        FsPath ofC = fileOf(write(manager, c, 1, EXCLUSIVE, bytes(1000, 3)));
        assertThat(ofB).as("a and b share a file").isEqualTo(ofA);
        assertThat(ofC).as("c is a third subtask: another file").isNotEqualTo(ofA);
        assertThat(fileOf(write(manager, a, 1, EXCLUSIVE, bytes(1000, 4)))).isEqualTo(ofA);
        assertThat(fileOf(write(manager, c, 1, EXCLUSIVE, bytes(1000, 5)))).isEqualTo(ofC);
        assertThat(manager.spaceUsage().unpooledFiles()).isZero();
    }

    @Test
    void aBlockingPoolWhoseFilesAllHaveOtherSubtasksClosesAnIdleOneInsteadOfWaitingForever() throws IOException {
        // Four subtasks, two per file: a blocking private pool of two files.
        FileMergingSnapshotManager manager = start(true, 2, 16, a, b, c, d);
        CheckpointOutputStream first = holding(manager, a, EXCLUSIVE, 1);
        CheckpointOutputStream second = holding(manager, a, EXCLUSIVE, 2);
        FsPath f1 = fileOf(first.closeAndGetHandle());
        FsPath f2 = fileOf(second.closeAndGetHandle());
        assertThat(fileOf(write(manager, b, 1, EXCLUSIVE, bytes(1000, 3)))).isEqualTo(f1);
        assertThat(fileOf(write(manager, c, 1, EXCLUSIVE, bytes(1000, 4)))).isEqualTo(f2);
        // f1 holds a and b, f2 a and c: neither may take d, and the pool is at its two files.
        StreamStateHandle ofD = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> write(manager, d, 1, EXCLUSIVE, bytes(1000, 5)));
        assertThat(fileOf(ofD)).isNotIn(f1, f2);
        SpaceUsage usage = manager.spaceUsage();
        assertThat(usage.pooledFiles()).as("one of the full files was closed to make room").isEqualTo(2);
        assertThat(usage.unpooledFiles()).isZero();
        fixture.assertReadsBack(ofD, bytes(1000, 5));
    }
}

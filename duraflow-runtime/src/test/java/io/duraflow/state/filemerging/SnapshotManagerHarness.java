package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.HEADER;
import static io.duraflow.state.filemerging.MergingFixture.TRAILER;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static io.duraflow.state.storage.CheckpointedStateScope.EXCLUSIVE;
import static io.duraflow.state.storage.CheckpointedStateScope.SHARED;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@link FileMergingSnapshotManager} at a time for two subtasks of a job, on the local file
 * system, and the steps the tests of its rules take: write {@value #SEGMENT}-byte segments of
 * {@code subtask}, reuse them, complete checkpoints. {@link #close()} closes every manager it
 * started.
 */
final class SnapshotManagerHarness implements AutoCloseable {
    static final int SEGMENT = 1000;
    /** A file of four segments. */
    static final long FOUR_SEGMENTS = HEADER + 4L * (SEGMENT + TRAILER);

    final MergingFixture fixture;
    final SubtaskKey subtask = new SubtaskKey(1, 0, 2);
    final SubtaskKey other = new SubtaskKey(1, 1, 2);
    private final List<FileMergingSnapshotManager> managers = new ArrayList<>();
    /** The manager {@link #start} started last. */
    FileMergingSnapshotManager manager;

    SnapshotManagerHarness(Path tmp) {
        fixture = new MergingFixture(tmp);
    }

    FileMergingSnapshotManager start(String run, FileMergingSettings settings) {
        manager = fixture.manager(run, settings, subtask, other);
        managers.add(manager);
        return manager;
    }

    /** A {@link #SEGMENT}-byte stream of {@code subtask}'s incremental state for checkpoint {@code checkpointId}. */
    StreamStateHandle shared(long checkpointId, int seed) throws IOException {
        return write(manager, subtask, checkpointId, SHARED, bytes(SEGMENT, seed));
    }

    StreamStateHandle exclusive(SubtaskKey key, long checkpointId, int seed) throws IOException {
        return write(manager, key, checkpointId, EXCLUSIVE, bytes(SEGMENT, seed));
    }

    List<StreamStateHandle> shared(long checkpointId, int count, int firstSeed) throws IOException {
        List<StreamStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            handles.add(shared(checkpointId, firstSeed + i));
        }
        return handles;
    }

    /** Checkpoint {@code checkpointId} of {@code subtask} refers to {@code handle} again, if the manager lets it. */
    boolean reuse(long checkpointId, StreamStateHandle handle) {
        return manager.streamFactory(subtask, checkpointId).tryReuse(handle);
    }

    void reuseAll(long checkpointId, List<StreamStateHandle> handles) {
        for (StreamStateHandle handle : handles) {
            assertThat(reuse(checkpointId, handle)).as("reuse of %s by %d", handle, checkpointId).isTrue();
        }
    }

    /** {@code subtask} acknowledged checkpoint {@code checkpointId}, which then completed. */
    void complete(long checkpointId, long lowestRetainedId) {
        manager.acknowledging(subtask, checkpointId);
        manager.checkpointCompleted(checkpointId, lowestRetainedId);
    }

    long liveBytes() {
        return manager.spaceUsage().liveBytes();
    }

    boolean exists(StreamStateHandle handle) {
        return fixture.exists(fileOf(handle));
    }

    @Override
    public void close() {
        managers.forEach(FileMergingSnapshotManager::close);
    }
}

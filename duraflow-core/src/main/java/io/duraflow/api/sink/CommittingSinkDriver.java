package io.duraflow.api.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What a streaming sink task does with a {@link TwoPhaseCommittingSink}, as an object with no
 * thread and no I/O of its own: the runtime's sink operator calls it on the task thread and
 * stores what {@link #snapshotState} returns as the UNION list state of the checkpoint (one
 * element per committable, written with {@link TwoPhaseCommittingSink#committableSerializer()}).
 *
 * <p>Committables wait, per checkpoint id, until a checkpoint at or after theirs completes; every
 * snapshot holds all that still wait, so a restore from any completed checkpoint commits
 * everything prepared up to it that might not have been committed.
 */
public final class CommittingSinkDriver<T, C> implements AutoCloseable,
        io.duraflow.api.checkpoint.CheckpointAvailabilityProvider {
    private final CommittingSinkWriter<T, C> writer;
    private final Committer<C> committer;
    /** Committables by the checkpoint that prepared them, not yet known to be committed. */
    private final NavigableMap<Long, List<C>> waiting = new TreeMap<>();
    private long lastPreparedCheckpointId = Long.MIN_VALUE;

    private CommittingSinkDriver(CommittingSinkWriter<T, C> writer, Committer<C> committer) {
        this.writer = writer;
        this.committer = committer;
    }

    /**
     * Starts a subtask: commits {@code restoredCommittables} (the union of all subtasks' in the
     * restored checkpoint; empty when there is none), lets the sink clean up leftovers of earlier
     * attempts, and creates the writer.
     */
    public static <T, C> CommittingSinkDriver<T, C> open(TwoPhaseCommittingSink<T, C> sink, SinkContext context,
            List<C> restoredCommittables) throws Exception {
        Committer<C> committer = sink.createCommitter();
        try {
            if (!restoredCommittables.isEmpty()) {
                committer.commit(restoredCommittables);
            }
            sink.cleanUpLeftovers(context, restoredCommittables);
            return new CommittingSinkDriver<>(sink.createWriter(context), committer);
        } catch (Exception | Error e) {
            committer.close();
            throw e;
        }
    }

    public void write(T record) throws Exception {
        writer.write(record);
    }

    /** Whether the writer can take its part of checkpoint {@code checkpointId} now. */
    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return writer.isSnapshotAvailable(checkpointId);
    }

    /**
     * Barrier {@code checkpointId} passes: prepares the writer's data and returns the operator
     * state of this checkpoint, every committable not committed yet, oldest first.
     *
     * @throws IllegalStateException if checkpoint ids do not increase
     */
    public List<C> snapshotState(long checkpointId) throws Exception {
        if (checkpointId <= lastPreparedCheckpointId) {
            throw new IllegalStateException("checkpoint " + checkpointId + " reached the sink after checkpoint "
                    + lastPreparedCheckpointId + "; checkpoint ids must increase");
        }
        lastPreparedCheckpointId = checkpointId;
        List<C> prepared = writer.prepareCommit(checkpointId);
        if (!prepared.isEmpty()) {
            waiting.put(checkpointId, List.copyOf(prepared));
        }
        List<C> state = new ArrayList<>();
        waiting.values().forEach(state::addAll);
        return state;
    }

    /** Checkpoint {@code checkpointId} completed: commits everything prepared up to it. */
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        NavigableMap<Long, List<C>> due = waiting.headMap(checkpointId, true);
        if (due.isEmpty()) {
            return;
        }
        List<C> committables = new ArrayList<>();
        for (Map.Entry<Long, List<C>> entry : due.entrySet()) {
            committables.addAll(entry.getValue());
        }
        committer.commit(committables);
        // Forgotten only once committed: a failed commit is retried by the next completion or the restore.
        due.clear();
    }

    /** Committables prepared and not committed yet (what the next snapshot holds besides new ones). */
    public int waitingCount() {
        return waiting.values().stream().mapToInt(List::size).sum();
    }

    /** Closes writer and committer; data of committables prepared so far stays for a restore to commit. */
    @Override
    public void close() throws Exception {
        try {
            writer.close();
        } finally {
            committer.close();
        }
    }
}

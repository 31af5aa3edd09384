package io.duraflow.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The completed checkpoints a job retains, durable so a new leader finds them: the latest is what
 * the job restores from. Used on the coordinator's I/O executor (its methods do I/O); the
 * coordinator never calls two methods at once.
 */
public interface CompletedCheckpointStore {
    /**
     * Reads the retained checkpoints from durable storage (a new leader, a restart). A pointer or
     * metadata file that cannot be read is skipped with a warning (see {@link #recoveryWarnings()}),
     * so the job falls back to the previous retained checkpoint instead of not starting.
     *
     * @return the retained checkpoints, oldest first
     */
    List<CompletedCheckpoint> recover() throws IOException;

    /**
     * Adds a checkpoint whose metadata is durable; the ones it subsumes beyond {@code num-retained}
     * leave {@link #retained()} at once, but their durable entries stay until {@link #removeSubsumed}.
     *
     * @return the subsumed checkpoints: the caller passes them to {@link #removeSubsumed}, then
     *     deletes their files
     * @throws NotLeaderException if this JobManager no longer leads; nothing was written
     */
    List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) throws IOException;

    /**
     * Removes the durable entries of checkpoints {@link #add} subsumed, best effort: one left
     * behind (a crash, lost leadership, an I/O error) is subsumed again after the next
     * {@link #recover()}. Apart from {@code add}, so that telling the tasks a checkpoint completed
     * does not wait for it.
     */
    void removeSubsumed(List<CompletedCheckpoint> subsumed);

    /** The retained checkpoints, oldest first. */
    List<CompletedCheckpoint> retained();

    default Optional<CompletedCheckpoint> latest() {
        List<CompletedCheckpoint> all = retained();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** What the last {@link #recover()} skipped and why, one line each. */
    List<String> recoveryWarnings();

    /**
     * Where the job's window of {@code tolerable-failed-checkpoints-timeout} started as recorded
     * ({@link CheckpointFailureManager} rule 7): the job's first start or the last failover by the
     * time limit. If nothing is recorded yet (the job's first start), records {@code nowMs} first.
     *
     * @throws NotLeaderException if it had to record and this JobManager no longer leads
     */
    long failureWindowStart(long nowMs) throws IOException;

    /** The time limit failed the job over: its new window starts at {@code startMs}; recorded for later leaders. */
    void recordFailureWindowRestart(long startMs) throws IOException;

    /** Removes every pointer and record: the job ended and will never be restored by this cluster. */
    void discard() throws IOException;

    /** A write was refused because this JobManager is no longer the leader. */
    final class NotLeaderException extends IOException {
        public NotLeaderException(String what) {
            super("not written: this JobManager is no longer the leader (" + what + "); the new leader takes over");
        }
    }
}

package io.duraflow.checkpoint;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;

/**
 * The last ended checkpoints of a job as {@code duraflow checkpoints ID} shows them, on the
 * {@link CheckpointCoordinator}'s main thread. Bounded, so a long-running job's history does not
 * grow without end: the oldest ended checkpoint is dropped first.
 */
final class CheckpointHistory {
    static final int SIZE = 100;

    private final Deque<CheckpointStats> ended = new ArrayDeque<>();
    /** Every checkpoint that ended so far, also those the bounded history dropped. */
    private long completed;
    private long failed;

    /** Checkpoint {@code checkpoint} ended at {@code endMs}, completed or failed with {@code failure}. */
    void record(PendingCheckpoint checkpoint, CheckpointStats.Status status, CheckpointFailure failure, long endMs) {
        ended.addLast(stats(checkpoint, status, endMs, failure));
        if (status == CheckpointStats.Status.COMPLETED) {
            completed++;
        } else {
            failed++;
        }
        while (ended.size() > SIZE) {
            ended.removeFirst();
        }
    }

    /** The ended checkpoints oldest first, then {@code inProgress} in their order. */
    List<CheckpointStats> withInProgress(Collection<PendingCheckpoint> inProgress) {
        List<CheckpointStats> all = new ArrayList<>(ended);
        for (PendingCheckpoint checkpoint : inProgress) {
            all.add(stats(checkpoint, CheckpointStats.Status.IN_PROGRESS, 0, null));
        }
        return all;
    }

    private static CheckpointStats stats(PendingCheckpoint checkpoint, CheckpointStats.Status status, long endMs,
            CheckpointFailure failure) {
        return new CheckpointStats(checkpoint.checkpointId, checkpoint.kind, status, checkpoint.timestampMs, endMs,
                checkpoint.stateSize(), checkpoint.checkpointedSize(), checkpoint.files().size(),
                checkpoint.uploadedFiles(), checkpoint.reusedFiles(), checkpoint.directory, failure);
    }

    long completed() {
        return completed;
    }

    long failed() {
        return failed;
    }
}

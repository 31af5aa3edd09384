package io.duraflow.checkpoint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;

/**
 * The last ended checkpoints of a job as {@code duraflow checkpoints ID} shows them, on the
 * {@link CheckpointCoordinator}'s main thread. Bounded, so a long-running job's history does not
 * grow without end: the oldest ended checkpoint is dropped first.
 */
final class CheckpointHistory {
    static final int SIZE = 100;

    private final LinkedList<CheckpointStats> ended = new LinkedList<>();
    /** Every checkpoint that ended so far, also those the bounded history dropped. */
    private long completed;
    private long failed;
    /** Every failure so far by reason, for the metrics endpoint. */
    private final Map<CheckpointFailureReason, Long> failedByReason = new EnumMap<>(CheckpointFailureReason.class);
    /** Completed checkpoints (not savepoints) by duration, per {@link CheckpointTotals#DURATION_BOUNDS_SECONDS}. */
    private final long[] durationCounts = new long[CheckpointTotals.DURATION_BOUNDS_SECONDS.length];
    private double durationSumSeconds;
    private CheckpointStats latestCompleted;

    /** Checkpoint {@code checkpoint} ended at {@code endMs}, completed or failed with {@code failure}. */
    void record(PendingCheckpoint checkpoint, CheckpointStats.Status status, CheckpointFailure failure, long endMs) {
        CheckpointStats stats = stats(checkpoint, status, endMs, failure);
        ended.addLast(stats);
        if (status == CheckpointStats.Status.COMPLETED) {
            completed++;
            if (checkpoint.kind == CheckpointKind.CHECKPOINT) {
                countDuration((endMs - checkpoint.timestampMs) / 1000.0);
                latestCompleted = stats;
            }
        } else {
            failed++;
            if (failure != null) {
                failedByReason.merge(failure.reason(), 1L, Long::sum);
            }
        }
        while (ended.size() > SIZE) {
            ended.removeFirst();
        }
    }

    /**
     * A task declined checkpoint {@code failure.checkpointId()} after it had failed: adds the
     * decline to its entry, and with {@code replacesFailure} makes it the entry's failure (a hard
     * decline after a soft one), counted under its reason instead of the first one's.
     *
     * @return whether the history still holds the checkpoint
     */
    boolean addDecline(CheckpointFailure failure, boolean replacesFailure) {
        ListIterator<CheckpointStats> entries = ended.listIterator(ended.size());
        while (entries.hasPrevious()) {
            CheckpointStats stats = entries.previous();
            if (stats.checkpointId() == failure.checkpointId() && stats.status() == CheckpointStats.Status.FAILED) {
                List<CheckpointFailure> declines = new ArrayList<>(stats.declines());
                declines.add(failure);
                CheckpointFailure shown = stats.failure();
                if (replacesFailure) {
                    failedByReason.merge(shown.reason(), -1L, Long::sum);
                    failedByReason.merge(failure.reason(), 1L, Long::sum);
                    shown = failure;
                }
                entries.set(new CheckpointStats(stats.checkpointId(), stats.kind(), stats.status(), stats.triggerMs(),
                        stats.endMs(), stats.stateSize(), stats.checkpointedSize(), stats.files(),
                        stats.filesUploaded(), stats.filesReused(), stats.directory(), shown, declines));
                return true;
            }
        }
        return false;
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

    private void countDuration(double seconds) {
        double[] bounds = CheckpointTotals.DURATION_BOUNDS_SECONDS;
        int bucket = 0;
        while (seconds > bounds[bucket]) {
            bucket++;
        }
        durationCounts[bucket]++;
        durationSumSeconds += seconds;
    }

    /** The counts so far, with {@code inProgress} checkpoints in progress now. */
    CheckpointTotals totals(int inProgress) {
        return new CheckpointTotals(completed, failedByReason, CheckpointTotals.DURATION_BOUNDS_SECONDS,
                durationCounts, durationSumSeconds, latestCompleted, inProgress);
    }

    long completed() {
        return completed;
    }

    long failed() {
        return failed;
    }
}

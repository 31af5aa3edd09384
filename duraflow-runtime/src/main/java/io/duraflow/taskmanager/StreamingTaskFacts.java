package io.duraflow.taskmanager;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.SplitsReceived;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a TaskManager records of a running streaming task's checkpoints, so that it can report the
 * task to a new leader if it keeps it across a leader change ({@code HeldTask} fields
 * 10-14; the new leader's {@code AdoptionPlanner} decides over them): the newest checkpoint it
 * acknowledged, the newest it was told completed, and, for a source reader, which checkpoint's
 * snapshot each batch of splits came after.
 *
 * <p>A split belongs to the reader's snapshot of checkpoint n iff it was applied before the
 * trigger of n. Triggers and split events are applied in the order of their sequence numbers
 * ({@code OperatorEventOrder}), so a batch with sequence s came after every trigger with a lower
 * sequence, whichever RPC arrived first. An unordered batch (sequence 0) or trigger counts by
 * arrival, which errs towards "after": the planner then restarts rather than adopts.
 *
 * <p>Mailbox only, like the slot that holds it.
 */
final class StreamingTaskFacts {
    private record Arrival(long sequence, long unorderedTriggerBefore, List<ByteString> splits) {}

    private final long restoredCheckpointId;
    private long lastAcknowledgedId;
    private long lastCompletedId;
    /** Ordered triggers: absolute sequence -> checkpoint id. */
    private final TreeMap<Long, Long> triggers = new TreeMap<>();
    /** The newest checkpoint whose trigger came unordered (sequence 0). */
    private long newestUnorderedTrigger;
    private final List<Arrival> arrivals = new ArrayList<>();

    StreamingTaskFacts(long restoredCheckpointId) {
        this.restoredCheckpointId = restoredCheckpointId;
    }

    /** The task was triggered for {@code checkpointId}; {@code sequence} is absolute (0: unordered). */
    void triggered(long checkpointId, long sequence) {
        if (sequence == 0) {
            newestUnorderedTrigger = Math.max(newestUnorderedTrigger, checkpointId);
        } else {
            triggers.put(sequence, checkpointId);
        }
    }

    /** The task acknowledged {@code checkpointId} (its snapshot is taken). */
    void acknowledged(long checkpointId) {
        lastAcknowledgedId = Math.max(lastAcknowledgedId, checkpointId);
    }

    /**
     * The task was told that {@code checkpointId} completed. Split batches that came before it are
     * forgotten, and so are the triggers only they needed: every trigger ordered before a batch
     * was applied before it, so none that could move a later batch's checkpoint is still to come.
     */
    void completed(long checkpointId) {
        lastCompletedId = Math.max(lastCompletedId, checkpointId);
        arrivals.removeIf(arrival -> afterOf(arrival) < lastCompletedId);
        triggers.values().removeIf(id -> id < lastCompletedId);
    }

    /** A source reader received splits, with their absolute sequence (0: unordered). */
    void splitsReceived(long sequence, List<ByteString> splits) {
        if (!splits.isEmpty()) {
            arrivals.add(new Arrival(sequence, newestUnorderedTrigger, List.copyOf(splits)));
        }
    }

    long lastAcknowledgedId() {
        return lastAcknowledgedId;
    }

    long lastCompletedId() {
        return lastCompletedId;
    }

    /** Adds fields 12-14 of a held task's report; batches that came before the newest completed checkpoint are left out. */
    void describe(HeldTask.Builder held) {
        held.setLastAcknowledgedCheckpointId(lastAcknowledgedId).setLastCompletedCheckpointId(lastCompletedId);
        Map<Long, List<ByteString>> byCheckpoint = new TreeMap<>();
        for (Arrival arrival : arrivals) {
            long after = afterOf(arrival);
            if (after >= lastCompletedId) {
                byCheckpoint.computeIfAbsent(after, id -> new ArrayList<>()).addAll(arrival.splits());
            }
        }
        byCheckpoint.forEach((after, splits) -> held.addSplitsReceived(
                SplitsReceived.newBuilder().setAfterCheckpointId(after).addAllSplits(splits)));
    }

    /** The newest checkpoint whose snapshot the reader had taken (or restored) before the batch. */
    private long afterOf(Arrival arrival) {
        long after = Math.max(restoredCheckpointId, arrival.unorderedTriggerBefore());
        if (arrival.sequence() == 0) {
            return Math.max(after, newestOrderedTrigger());
        }
        for (long id : triggers.headMap(arrival.sequence(), false).values()) {
            after = Math.max(after, id);
        }
        return after;
    }

    private long newestOrderedTrigger() {
        long newest = 0;
        for (long id : triggers.values()) {
            newest = Math.max(newest, id);
        }
        return newest;
    }
}

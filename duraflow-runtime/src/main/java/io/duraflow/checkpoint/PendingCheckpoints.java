package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link CheckpointCoordinator}'s checkpoints in progress, on its main thread: the pending
 * ones by id, the triggers still drawing an id, and the count of checkpoints started so far (its
 * {@link CheckpointCoordinator#startMark}). It only keeps them and answers questions about them;
 * when one starts or ends is the coordinator's to decide.
 *
 * <p>The lists it hands out are copies: aborting one checkpoint while going through them must not
 * disturb the iteration, and the caller checks each one's state as it gets to it.
 */
final class PendingCheckpoints {
    private final CompletedCheckpointStore store;
    private final TreeMap<Long, PendingCheckpoint> byId = new TreeMap<>();
    /** Triggers whose id is being drawn on the I/O executor: they count against the concurrency limit. */
    private int triggersInFlight;
    /** Checkpoints and savepoints started (given an id and a plan) so far. */
    private long started;
    private long highestTriggeredId;

    /** @param store its retained checkpoints are live too ({@link #liveCheckpointIds}) */
    PendingCheckpoints(CompletedCheckpointStore store) {
        this.store = store;
    }

    /** A trigger began to draw an id. */
    void triggerStarted() {
        triggersInFlight++;
    }

    /** A trigger's id was drawn (or could not be): it starts a pending checkpoint or ends. */
    void triggerEnded() {
        triggersInFlight--;
    }

    boolean triggerInFlight() {
        return triggersInFlight > 0;
    }

    /** The pending checkpoints and the triggers drawing an id: what {@code max-concurrent-checkpoints} limits. */
    int inProgress() {
        return byId.size() + triggersInFlight;
    }

    /** Starts checkpoint {@code id}: pending from now on, numbered after every checkpoint started before. */
    PendingCheckpoint start(String jobId, long id, long timestampMs, CheckpointKind kind, CheckpointPlan plan,
            FsPath directory) {
        PendingCheckpoint checkpoint = new PendingCheckpoint(jobId, id, ++started, timestampMs, kind, plan, directory);
        highestTriggeredId = Math.max(highestTriggeredId, id);
        byId.put(id, checkpoint);
        return checkpoint;
    }

    /** The pending checkpoint {@code id}, or null. */
    PendingCheckpoint get(long id) {
        return byId.get(id);
    }

    /** Checkpoint {@code id} ended: completed or aborted. */
    void remove(long id) {
        byId.remove(id);
    }

    int size() {
        return byId.size();
    }

    /** Every pending checkpoint, oldest first; a copy. */
    List<PendingCheckpoint> all() {
        return new ArrayList<>(byId.values());
    }

    /** The pending checkpoints (and savepoints) older than {@code id}, oldest first; a copy. */
    List<PendingCheckpoint> olderThan(long id) {
        return new ArrayList<>(byId.headMap(id).values());
    }

    /** The highest id the coordinator drew and started: a {@code chk-<n>} above it may be another's. */
    long highestTriggeredId() {
        return highestTriggeredId;
    }

    /** How many checkpoints started so far: a checkpoint started later has a higher start sequence. */
    long startMark() {
        return started;
    }

    /** The ids of the pending and the retained checkpoints: their files and directories stay. */
    Set<Long> liveCheckpointIds() {
        Set<Long> live = new HashSet<>(byId.keySet());
        store.retained().forEach(retained -> live.add(retained.checkpointId()));
        return live;
    }

    /** The id of the savepoint in progress, if one is. */
    Optional<Long> savepointInProgress() {
        return byId.values().stream().filter(p -> p.kind == CheckpointKind.SAVEPOINT)
                .map(p -> p.checkpointId).findFirst();
    }

    /** The result of the oldest pending checkpoint (not a savepoint) started after {@code mark}, if there is one. */
    Optional<CompletableFuture<CompletedCheckpoint>> checkpointStartedAfter(long mark) {
        return byId.values().stream()
                .filter(p -> p.kind == CheckpointKind.CHECKPOINT && p.startSequence > mark && !p.isEnded())
                .map(p -> p.result).findFirst();
    }
}

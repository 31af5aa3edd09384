package io.duraflow.api.source;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Reads splits in a task. Single-threaded: the task thread calls every method, including the
 * delivery of splits from the enumerator, so implementations need no synchronization; the one
 * exception is {@link #wakeUp}.
 */
public interface SourceReader<T, S extends SourceSplit> extends AutoCloseable, CheckpointAvailabilityProvider {
    /** Called once before anything else; typically asks for the first split. */
    void start();

    /**
     * Emits a bounded batch of records (a few thousand at most) and says what comes next. A
     * reader of several splits at once emits each split's records through {@link
     * ReaderOutput#forSplit} (see there).
     */
    InputStatus pollNext(ReaderOutput<T> output) throws Exception;

    void addSplits(List<S> splits);

    void notifyNoMoreSplits();

    /**
     * The splits this reader holds and has not finished, with their progress: restored into a
     * new reader, they yield exactly the records this one has not emitted yet. Called on the task
     * thread between two {@link #pollNext} calls.
     */
    List<S> snapshotState(long checkpointId) throws Exception;

    /**
     * After {@link #pollNext} said {@link InputStatus#NOTHING_AVAILABLE}: completes when polling
     * again is worth it (a rate limit's next slot, data that arrived). The task does not poll
     * before it completes, except after new splits or the end of splits reached the reader. The
     * default never completes: the reader waits for splits only.
     */
    default CompletionStage<Void> isAvailable() {
        return WAIT_FOR_SPLITS;
    }

    /** What {@link #isAvailable()} returns by default; nobody can complete it. */
    CompletionStage<Void> WAIT_FOR_SPLITS = new CompletableFuture<Void>().minimalCompletionStage();

    /**
     * Whether this reader can take its part of checkpoint {@code checkpointId} now; asked on the
     * task thread before {@link #snapshotState} and before the checkpoint barrier is emitted. A
     * soft failure ("not now") or hard failure ("this is wrong") declines the checkpoint at once
     * (see {@link SnapshotAvailability}). Default: available.
     */
    @Override
    default SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return SnapshotAvailability.available();
    }

    /**
     * Checkpoint {@code checkpointId} completed: everything this reader emitted before it is
     * durable downstream (a source may acknowledge messages to an external system here).
     */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /**
     * Any thread: the task has other work (a checkpoint to take, a split to add, a commit) while
     * {@link #pollNext} may be waiting inside a client for records. A reader whose {@code pollNext}
     * blocks (a Kafka consumer's {@code poll} with a timeout) makes that call return soon, so the
     * work does not wait for the timeout; one that never blocks ignores it (the default). Called
     * once per piece of work, also while no {@code pollNext} runs: it must be cheap, thread-safe,
     * and leave no effect behind on the reader's other calls.
     */
    default void wakeUp() {}

    @Override
    default void close() throws Exception {}
}

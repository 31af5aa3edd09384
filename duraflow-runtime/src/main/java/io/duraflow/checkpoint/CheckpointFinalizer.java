package io.duraflow.checkpoint;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.mailbox.Mailbox;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Makes a checkpoint that every task acknowledged durable, the I/O of the {@link
 * CheckpointCoordinator}'s rule 3: builds its {@link CompletedCheckpoint} on the main thread, then
 * on the sequential I/O executor writes its {@code _metadata} (synced, exclusive; a savepoint's on
 * the file system of its own directory) and adds a checkpoint to the completed store, which drops
 * the oldest beyond {@code num-retained}. The {@link Outcome} goes back to the coordinator on the
 * main thread, which completes or aborts the checkpoint: only its own finalization failing aborts
 * a checkpoint that is finalizing.
 */
final class CheckpointFinalizer {
    /** How a finalization ended; handed to the coordinator on the main thread. */
    sealed interface Outcome permits Durable, Failed {}

    /** The metadata is durable and a checkpoint is in the store, which dropped {@code subsumed}. */
    record Durable(PendingCheckpoint checkpoint, CompletedCheckpoint completed, List<CompletedCheckpoint> subsumed)
            implements Outcome {}

    /** The checkpoint cannot be made durable, or a newer one was first: it is to be aborted. */
    record Failed(PendingCheckpoint checkpoint, CheckpointFailure failure) implements Outcome {}

    private final int maxParallelism;
    private final FileSystem fileSystem;
    private final CompletedCheckpointStore store;
    private final Mailbox mainThread;
    private final MainThreadIo io;
    private final LongSupplier clockMs;
    private final Consumer<Outcome> outcomes;
    /** The newest checkpoint (not savepoint) made durable: the store refuses an older one after it. */
    private long latestCompletedId;

    /**
     * @param io the coordinator's sequential I/O, so a restore reads the store only after a
     *     finalization that began earlier
     * @param outcomes gets every finalization's outcome on the main thread; at once (within
     *     {@link #makeDurable}) if the acknowledgements do not make a checkpoint
     */
    CheckpointFinalizer(CheckpointCoordinatorConfig config, CheckpointCoordinator.Services services, MainThreadIo io,
            Consumer<Outcome> outcomes) {
        this.maxParallelism = config.maxParallelism();
        this.fileSystem = services.fileSystem();
        this.store = services.store();
        this.mainThread = services.mainThread();
        this.io = io;
        this.clockMs = services.clockMs();
        this.outcomes = outcomes;
    }

    /** Main thread: {@code checkpoint} is finalizing (every task acknowledged). */
    void makeDurable(PendingCheckpoint checkpoint) {
        CompletedCheckpoint completed;
        try {
            completed = checkpoint.toCompleted(maxParallelism, clockMs.getAsLong(),
                    checkpoint.directory.resolve(CheckpointDirectories.METADATA_FILE));
        } catch (IllegalArgumentException e) {
            outcomes.accept(new Failed(checkpoint, new CheckpointFailure(checkpoint.checkpointId,
                    CheckpointFailureReason.FINALIZE_FAILURE, e.getMessage(), null)));
            return;
        }
        io.run(() -> {
            CheckpointMetadataFormat.write(completed.kind() == CheckpointKind.SAVEPOINT
                    ? FileSystems.get(completed.metadataFile()) : fileSystem, completed);
            return completed.kind() == CheckpointKind.CHECKPOINT ? store.add(completed)
                    : List.<CompletedCheckpoint>of();
        }).whenComplete((subsumed, error) -> {
            mainThread.assertRunningInMailbox();
            if (error != null && completed.kind() == CheckpointKind.CHECKPOINT
                    && latestCompletedId > checkpoint.checkpointId) {
                // A newer checkpoint finalized first; the store refused this older one.
                outcomes.accept(new Failed(checkpoint, new CheckpointFailure(checkpoint.checkpointId,
                        CheckpointFailureReason.SUBSUMED, "checkpoint " + latestCompletedId + " completed first",
                        null)));
            } else if (error != null) {
                outcomes.accept(new Failed(checkpoint, new CheckpointFailure(checkpoint.checkpointId,
                        CheckpointFailureReason.FINALIZE_FAILURE,
                        "cannot make the checkpoint durable: " + MainThreadIo.describe(error), null)));
            } else {
                if (completed.kind() == CheckpointKind.CHECKPOINT) {
                    latestCompletedId = Math.max(latestCompletedId, checkpoint.checkpointId);
                }
                outcomes.accept(new Durable(checkpoint, completed, subsumed));
            }
        });
    }
}

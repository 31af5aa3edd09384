package io.duraflow.checkpoint;

import io.duraflow.fs.FileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds what a (re)starting job restores from (the {@link CheckpointCoordinator}'s rules 8 and 9)
 * and keeps what the restore leaves for later. Reads run through {@link RestoreRead} on the
 * sequential I/O executor, the rest on the main thread. Its rules: see
 * docs/design/checkpoint-coordination.md#checkpointrestorer.
 */
final class CheckpointRestorer {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRestorer.class);

    private final String jobId;
    private final CheckpointDirectories directories;
    private final FileSystem fileSystem;
    private final Mailbox mainThread;
    private final MainThreadIo io;
    private final LongSupplier clockMs;
    private final CheckpointIdCounter idCounter;
    private final CompletedCheckpointStore store;
    private final CheckpointFileDisposal disposal;
    private final CheckpointFailures failures;
    private final PendingCheckpoints pending;

    /** Rule 2: what the job restores while its store is empty; null: nothing. */
    private InitialRestore initialRestore;
    /** What the job's tasks last restored from, for the overview; null: empty state. */
    private CompletedCheckpoint restoredFrom;
    /** Rule 2, claim mode: the restored checkpoint, subsumed by the job's first completed checkpoint; or null. */
    private CompletedCheckpoint claimed;
    /** Rule 2, no-claim mode: checkpoints are triggered full until one completes. */
    private boolean fullUntilCompleted;

    /**
     * @param io the coordinator's sequential I/O, so a restore reads the store only after a
     *     finalization that began earlier
     * @param failures told where the restored failure window starts
     * @param pending what is in progress when the restore's reads are back: its files and
     *     directories stay
     */
    CheckpointRestorer(String jobId, CheckpointDirectories directories, CheckpointCoordinator.Services services,
            MainThreadIo io, CheckpointFileDisposal disposal, CheckpointFailures failures, PendingCheckpoints pending) {
        this.jobId = jobId;
        this.directories = directories;
        this.fileSystem = services.fileSystem();
        this.mainThread = services.mainThread();
        this.io = io;
        this.clockMs = services.clockMs();
        this.idCounter = services.idCounter();
        this.store = services.store();
        this.disposal = disposal;
        this.failures = failures;
        this.pending = pending;
    }

    /** Rule 2: what the job restores while it has no completed checkpoint of its own; before the first restore. */
    void initialRestore(InitialRestore restore) {
        this.initialRestore = Objects.requireNonNull(restore, "restore");
    }

    /**
     * Rule 1: reads where the job goes on from (on the I/O executor) and applies it on the main
     * thread; the future completes there.
     *
     * @param adopting a new leader adopts the running tasks: their files stay
     */
    CompletableFuture<CheckpointCoordinator.RestorePoint> restore(boolean adopting) {
        InitialRestore initial = initialRestore;
        long nowMs = clockMs.getAsLong();
        CompletableFuture<RestoreRead.Recovered> read =
                io.run(() -> RestoreRead.read(store, idCounter, fileSystem, directories, initial, adopting, nowMs));
        return read.thenApply(recovered -> {
            mainThread.assertRunningInMailbox();
            List<CompletedCheckpoint> retained = recovered.retained();
            failures.restoredWindow(recovered.windowStartMs());
            disposal.restore(retained);
            if (recovered.initial() != null) {
                CompletedCheckpoint restored = restoreInitial(recovered.initial(), initial.claim());
                deleteOrphansAfterRestore(recovered, adopting);
                return new CheckpointCoordinator.RestorePoint(Optional.of(restored), true, recovered.nextId());
            }
            deleteOrphansAfterRestore(recovered, adopting);
            if (retained.isEmpty()) {
                LOG.info("Job {} has no completed checkpoint to restore", jobId);
                restoredFrom = null;
                return new CheckpointCoordinator.RestorePoint(Optional.empty(), false, recovered.nextId());
            }
            CompletedCheckpoint latest = retained.get(retained.size() - 1);
            restoredFrom = latest;
            LOG.info("Job {} {} {}", jobId, adopting ? "goes on from" : "restores", latest);
            return new CheckpointCoordinator.RestorePoint(Optional.of(latest), false, recovered.nextId());
        });
    }

    private void deleteOrphansAfterRestore(RestoreRead.Recovered recovered, boolean adopting) {
        if (recovered.warnings().isEmpty()) {
            disposal.deleteOrphansAfterRestore(recovered.sharedFiles(), recovered.fileMergingDirectories(),
                    pending.liveCheckpointIds(), !pending.triggerInFlight(), adopting ? -1 : recovered.nextId());
        } else {
            // A checkpoint that could not be read may be whole after all: keep what it may refer to.
            LOG.warn("Job {}: not deleting unreferenced checkpoint files after the restore: {}", jobId,
                    recovered.warnings());
        }
    }

    /** Rule 2, on the main thread: the store is empty and the job restores what it was submitted with. */
    private CompletedCheckpoint restoreInitial(CompletedCheckpoint restored, boolean claim) {
        restoredFrom = restored;
        if (claim) {
            claimed = restored;
            disposal.restore(List.of(restored));
            disposal.claim(restored);
            LOG.info("Job {} restores {} in claim mode: its files are the job's now, deleted once subsumed", jobId,
                    restored);
        } else {
            fullUntilCompleted = true;
            LOG.info("Job {} restores {} in no-claim mode: its files stay untouched, and the job's checkpoints are"
                    + " full until one completes", jobId, restored);
        }
        return restored;
    }

    /** The files {@code restored} refers to become the job's ({@link CheckpointCoordinator#claim}). */
    void claim(CompletedCheckpoint restored) {
        disposal.claim(restored);
    }

    /** Rule 2, no-claim mode: whether the next checkpoint must refer to no earlier file. */
    boolean checkpointsFull() {
        return fullUntilCompleted;
    }

    /** A checkpoint of the job (not a savepoint) completed: rule 2's full checkpoints are over. */
    void checkpointCompleted() {
        fullUntilCompleted = false;
    }

    /**
     * Rule 2, claim mode: what {@code completed} subsumes, the checkpoints the store dropped and,
     * the first time, the claimed initial restore.
     */
    List<CompletedCheckpoint> subsumedBy(CompletedCheckpoint completed, List<CompletedCheckpoint> dropped) {
        if (claimed == null) {
            return dropped;
        }
        LOG.info("Job {}: {} subsumes the claimed {}", jobId, completed, claimed);
        List<CompletedCheckpoint> withClaimed = new ArrayList<>(dropped);
        withClaimed.add(claimed);
        claimed = null;
        return withClaimed;
    }

    /** What the job's tasks last restored from, if anything. */
    Optional<CompletedCheckpoint> restoredFrom() {
        return Optional.ofNullable(restoredFrom);
    }
}

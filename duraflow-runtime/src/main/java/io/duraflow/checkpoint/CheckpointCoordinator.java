package io.duraflow.checkpoint;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.mailbox.Mailbox;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a job's checkpoints: a state machine per checkpoint on the JobMaster's main thread, with
 * I/O on a sequential I/O executor whose results come back to the main thread; time comes from the
 * injected clock and {@link Mailbox#schedule}. Its rules (trigger, order, completion, abort, late
 * messages, failures, leftovers, restore, initial restore), numbered as its parts, tests and code
 * refer to them: see docs/design/checkpoint-coordination.md#checkpointcoordinator.
 */
public final class CheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobId;
    private final CheckpointCoordinatorConfig config;
    private final Mailbox mainThread;
    private final LongSupplier clockMs;
    private final CompletedCheckpointStore store;
    /** The sequential I/O executor of {@link Services#io()}: the store's and the cleaner's I/O, in order. */
    private final Executor ioExecutor;
    private final CheckpointTasks tasks;
    private final OperatorCoordinatorCheckpoints coordinators;

    private final PendingCheckpoints pending;
    private final CheckpointFileDisposal disposal;
    private final CheckpointFailures failures;
    private final PeriodicTriggerScheduler scheduler;
    private final CheckpointStarter starter;
    private final CheckpointAcknowledgements acknowledgements;
    private final CheckpointFinalizer finalizer;
    private final CheckpointRestorer restorer;
    private final CheckpointHistory history = new CheckpointHistory();
    private final CheckpointDeclines declines;
    private boolean shutdown;
    /** Completes once shut down with no checkpoint finalizing: see {@link #shutdown()}. */
    private final CompletableFuture<Void> quiesced = new CompletableFuture<>();

    /** The coordinator's collaborators; one record so the constructor stays readable. */
    public record Services(FileSystem fileSystem, Mailbox mainThread, Executor io, LongSupplier clockMs,
            CheckpointIdCounter idCounter, CompletedCheckpointStore store, CheckpointTasks tasks,
            OperatorCoordinatorCheckpoints coordinators, CheckpointFailureHandler failureHandler) {
        public Services {
            Objects.requireNonNull(fileSystem, "fileSystem");
            Objects.requireNonNull(mainThread, "mainThread");
            Objects.requireNonNull(io, "io");
            Objects.requireNonNull(clockMs, "clockMs");
            Objects.requireNonNull(idCounter, "idCounter");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(tasks, "tasks");
            Objects.requireNonNull(coordinators, "coordinators");
            Objects.requireNonNull(failureHandler, "failureHandler");
        }
    }

    /**
     * @param services {@code io} must run its tasks one at a time in order (a single thread), so a
     *     restore reads the store only after a finalization that began earlier
     */
    public CheckpointCoordinator(String jobId, CheckpointCoordinatorConfig config, CheckpointDirectories directories,
            Services services) {
        this.jobId = Objects.requireNonNull(jobId, "jobId");
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(directories, "directories");
        this.mainThread = services.mainThread();
        MainThreadIo io = new MainThreadIo(services.io(), mainThread);
        this.clockMs = services.clockMs();
        this.store = services.store();
        this.ioExecutor = services.io();
        this.tasks = services.tasks();
        this.coordinators = services.coordinators();
        this.pending = new PendingCheckpoints(store);
        this.disposal = new CheckpointFileDisposal(directories,
                new CheckpointFileCleaner(jobId, services.fileSystem(), directories, services.io()));
        this.failures = new CheckpointFailures(config, mainThread, clockMs, services.failureHandler(), io, store);
        this.declines = new CheckpointDeclines(jobId, config.timeoutMs(), history, failures);
        // Once shut down, startPeriodic refuses, so the scheduler never triggers after a shutdown.
        this.scheduler = new PeriodicTriggerScheduler(config, mainThread, clockMs, pending::inProgress,
                this::triggerPeriodic);
        Progress progress = new Progress();
        this.starter = new CheckpointStarter(jobId, config, directories, services, io, pending, scheduler, progress);
        this.acknowledgements = new CheckpointAcknowledgements(jobId, clockMs, pending, disposal, declines, progress);
        this.finalizer = new CheckpointFinalizer(config, services, io, this::onFinalized);
        this.restorer = new CheckpointRestorer(jobId, directories, services, io, disposal, failures, pending);
    }

    // ------------------------------------------------------------------ life cycle

    /** Rule 9: what the job restores while it has no completed checkpoint of its own; before the first restore. */
    public void initialRestore(InitialRestore restore) {
        mainThread.assertRunningInMailbox();
        restorer.initialRestore(restore);
    }

    /** Starts periodic checkpoints (if an interval is configured); the first comes one interval from now. */
    public void startPeriodic() {
        startPeriodic(false);
    }

    /**
     * Starts periodic checkpoints (if an interval is configured); with {@code firstNow} the first
     * comes as soon as the rules let it (a new leader that adopted running tasks: their output
     * waits for a checkpoint since the old leader's last one).
     */
    public void startPeriodic(boolean firstNow) {
        mainThread.assertRunningInMailbox();
        if (shutdown || config.intervalMs() == 0) {
            return;
        }
        scheduler.start(firstNow);
        failures.start();
    }

    /** Stops periodic triggers; pending checkpoints go on (a job failover aborts them with {@link #abortPending}). */
    public void stopPeriodic() {
        mainThread.assertRunningInMailbox();
        scheduler.stop();
        failures.stop();
    }

    /**
     * The job ended or leadership is gone: no more triggers, pending checkpoints aborted. A
     * checkpoint that is finalizing goes on (its metadata and completed-store pointer may already
     * be written), so the returned future completes on the main thread only once none is: until
     * then the job's checkpoint directory is still being written, and nothing may clean it up.
     */
    public CompletableFuture<Void> shutdown() {
        mainThread.assertRunningInMailbox();
        stopPeriodic();
        abortPending(CheckpointFailureReason.COORDINATOR_SHUTDOWN, "the checkpoint coordinator shut down");
        declines.clear();
        shutdown = true;
        if (!pending.all().isEmpty()) {
            LOG.info("Job {}: checkpoint(s) {} finalizing after the coordinator shut down; waiting for them", jobId,
                    pending.all().stream().map(c -> c.checkpointId).toList());
        }
        completeQuiescedIfIdle();
        return quiesced;
    }

    private void completeQuiescedIfIdle() {
        if (shutdown && pending.all().isEmpty()) {
            quiesced.complete(null);
        }
    }

    /**
     * Aborts every pending checkpoint that is not finalizing, e.g. because the job fails over and
     * its tasks restart.
     */
    public void abortPending(CheckpointFailureReason reason, String message) {
        mainThread.assertRunningInMailbox();
        for (PendingCheckpoint checkpoint : pending.all()) {
            if (checkpoint.state() != PendingCheckpoint.State.FINALIZING) {
                abort(checkpoint, new CheckpointFailure(checkpoint.checkpointId, reason, message, null));
            }
        }
    }

    /**
     * What a (re)starting job restores from: aborts pending checkpoints (job failover), reads the
     * completed store, continues the id counter after its latest checkpoint and rebuilds which files
     * the retained checkpoints use.
     *
     * @return the latest retained checkpoint, or empty if there is none
     */
    public CompletableFuture<Optional<CompletedCheckpoint>> restoreLatest() {
        return restore(false).thenApply(RestorePoint::checkpoint);
    }

    /**
     * What a new leader that adopts the job's running tasks goes on from: like {@link
     * #restoreLatest()}, but of what an earlier leader's unfinished checkpoints left it deletes only
     * their {@code chk-<n>} directories: the adopted tasks still write to files under {@code
     * shared/} and {@code taskowned/} that no completed checkpoint names yet (their merged checkpoint
     * files). Unreferenced files there go when the job ends, or at its next restore.
     */
    public CompletableFuture<RestorePoint> restoreForAdoption() {
        return restore(true);
    }

    /**
     * Where a restore starts from.
     *
     * @param checkpoint the latest retained checkpoint, else the initial restore, else empty
     * @param initial    whether {@code checkpoint} is the initial restore (the job has none of its own)
     * @param nextId     the id the next checkpoint gets: ids between the restored one and it may
     *                   have been triggered by an earlier leader
     */
    public record RestorePoint(Optional<CompletedCheckpoint> checkpoint, boolean initial, long nextId) {}

    private CompletableFuture<RestorePoint> restore(boolean adopting) {
        mainThread.assertRunningInMailbox();
        abortPending(CheckpointFailureReason.JOB_FAILOVER, "the job restores its latest checkpoint");
        declines.clear();
        return restorer.restore(adopting);
    }

    /**
     * The job was restored from {@code restored} with {@code --claim}: the files it refers to
     * become the job's, deleted once no retained or pending checkpoint uses them (without a claim
     * the job never deletes a file outside its own checkpoint directory). Rule 9 calls it for the
     * checkpoint a job was submitted with; the restored checkpoint must also be known as retained,
     * so that snapshots may reuse its shared files.
     */
    public void claim(CompletedCheckpoint restored) {
        mainThread.assertRunningInMailbox();
        restorer.claim(restored);
    }

    // ------------------------------------------------------------------ triggering

    /** Triggers a checkpoint now, whatever the interval, pause and concurrency limit. */
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
        mainThread.assertRunningInMailbox();
        return starter.trigger(CheckpointKind.CHECKPOINT, null);
    }

    /**
     * Triggers a savepoint into a new directory {@code savepoint-<job id>-<checkpoint id>} under
     * {@code targetDirectory}: a checkpoint that is never subsumed and whose files the job never
     * deletes once it completed.
     */
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory) {
        mainThread.assertRunningInMailbox();
        return starter.trigger(CheckpointKind.SAVEPOINT, Objects.requireNonNull(targetDirectory, "targetDirectory"));
    }

    private void triggerPeriodic() {
        starter.trigger(CheckpointKind.CHECKPOINT, null).exceptionally(e -> null);
    }

    // ------------------------------------------------------------------ acknowledgements and declines

    /** A task's part of checkpoint {@code checkpointId} is durable: its state handles and what it measured. */
    public void acknowledge(CheckpointTask task, long checkpointId, TaskStateSnapshot snapshot,
            CheckpointMetrics metrics) {
        mainThread.assertRunningInMailbox();
        acknowledgements.acknowledge(task, checkpointId, snapshot, metrics);
    }

    /**
     * A task finished (a bounded input ended and a checkpoint after the end completed): pending
     * checkpoints still waiting for it never get its part, so they are aborted at once instead of
     * expiring. Does not count as a failure; the next checkpoint leaves the finished task out.
     */
    public void taskFinished(CheckpointTask task) {
        mainThread.assertRunningInMailbox();
        acknowledgements.taskFinished(task);
    }

    /**
     * A task will not take its part of checkpoint {@code checkpointId}: aborts it at once; a decline
     * after that (another task's) may still count ({@link CheckpointDeclines}).
     */
    public void decline(CheckpointTask task, long checkpointId, CheckpointFailureReason reason, String message) {
        mainThread.assertRunningInMailbox();
        acknowledgements.decline(task, checkpointId, reason, message);
    }

    // ------------------------------------------------------------------ completion

    private void finalizeCheckpoint(PendingCheckpoint checkpoint) {
        checkpoint.transition(PendingCheckpoint.State.FINALIZING, "every task acknowledged");
        checkpoint.timeout.cancel();
        finalizer.makeDurable(checkpoint);
    }

    private void onFinalized(CheckpointFinalizer.Outcome outcome) {
        if (outcome instanceof CheckpointFinalizer.Durable durable) {
            complete(durable.checkpoint(), durable.completed(), durable.subsumed());
        } else if (outcome instanceof CheckpointFinalizer.Failed failed) {
            abort(failed.checkpoint(), failed.failure());
        }
        completeQuiescedIfIdle();
    }

    private void complete(PendingCheckpoint checkpoint, CompletedCheckpoint completed, List<CompletedCheckpoint> subsumed) {
        checkpoint.transition(PendingCheckpoint.State.COMPLETED, "metadata durable");
        pending.remove(checkpoint.checkpointId);
        long nowMs = clockMs.getAsLong();
        scheduler.onCompleted(nowMs);
        if (completed.kind() == CheckpointKind.CHECKPOINT) {
            restorer.checkpointCompleted();
        }
        failures.onCompleted(checkpoint.checkpointId, nowMs);
        history.record(checkpoint, CheckpointStats.Status.COMPLETED, null, clockMs.getAsLong());
        LOG.info("Completed {} in {} ms ({} bytes)", completed, nowMs - checkpoint.timestampMs, checkpoint.stateSize());
        if (!shutdown) {
            long lowestRetainedId = completed.kind() == CheckpointKind.SAVEPOINT ? 0
                    : store.retained().stream().mapToLong(CompletedCheckpoint::checkpointId).min()
                            .orElse(checkpoint.checkpointId);
            tasks.notifyCheckpointComplete(checkpoint.plan.toAcknowledge(), checkpoint.checkpointId, lowestRetainedId);
            coordinators.notifyCheckpointComplete(checkpoint.checkpointId);
        }
        if (completed.kind() == CheckpointKind.SAVEPOINT) {
            disposal.onSavepointCompleted(checkpoint.checkpointId);
        } else {
            declines.onCompleted(checkpoint.checkpointId);
            for (PendingCheckpoint older : pending.olderThan(checkpoint.checkpointId)) {
                if (older.kind == CheckpointKind.CHECKPOINT && older.state() != PendingCheckpoint.State.FINALIZING) {
                    abort(older, new CheckpointFailure(older.checkpointId, CheckpointFailureReason.SUBSUMED,
                            "checkpoint " + checkpoint.checkpointId + " completed first", null));
                }
            }
            if (!subsumed.isEmpty()) {
                // After the notifications, so the sinks' commits do not wait for it; before the
                // subsumed files are deleted (same sequential executor), so no pointer names gone files.
                ioExecutor.execute(() -> store.removeSubsumed(subsumed));
            }
            disposal.onCheckpointCompleted(checkpoint.checkpointId, restorer.subsumedBy(completed, subsumed),
                    pending.liveCheckpointIds());
        }
        checkpoint.result.complete(completed);
        scheduler.reschedule();
    }

    // ------------------------------------------------------------------ abort

    private void abort(PendingCheckpoint checkpoint, CheckpointFailure failure) {
        boolean tasksTriggered = checkpoint.state() != PendingCheckpoint.State.TRIGGERING;
        checkpoint.transition(PendingCheckpoint.State.ABORTED, failure.reason().toString());
        pending.remove(checkpoint.checkpointId);
        checkpoint.timeout.cancel();
        history.record(checkpoint, CheckpointStats.Status.FAILED, failure, clockMs.getAsLong());
        LOG.warn("Job {}: {}", jobId, failure.describe());
        if (tasksTriggered && !shutdown) {
            tasks.notifyCheckpointAborted(checkpoint.plan.toAcknowledge(), checkpoint.checkpointId, failure);
        }
        coordinators.notifyCheckpointAborted(checkpoint.checkpointId);
        disposal.onAborted(checkpoint.checkpointId, checkpoint.directory);
        checkpoint.result.completeExceptionally(new CheckpointException(failure));
        if (failure.reason() == CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT) {
            scheduler.onSoftDecline(clockMs.getAsLong());
        }
        // A failed savepoint is the user's to retry; it does not push the job toward a failover.
        if (checkpoint.kind == CheckpointKind.CHECKPOINT && !shutdown) {
            failures.onAborted(failure);
        }
        scheduler.reschedule();
    }

    // ------------------------------------------------------------------ queries

    /** The last checkpoints, oldest first: in progress, completed and failed. */
    public List<CheckpointStats> history() {
        mainThread.assertRunningInMailbox();
        return history.withInProgress(pending.all());
    }

    /** What {@code duraflow checkpoints ID} shows. */
    public CheckpointOverview overview() {
        mainThread.assertRunningInMailbox();
        return new CheckpointOverview(config.intervalMs(), history.completed(), history.failed(), store.latest(),
                restorer.restoredFrom(), history());
    }

    /** What the coordinator counted so far, for the metrics endpoint. */
    public CheckpointTotals totals() {
        mainThread.assertRunningInMailbox();
        return history.totals(pending.size());
    }

    /** The id of the savepoint in progress, if one is. */
    public Optional<Long> savepointInProgress() {
        mainThread.assertRunningInMailbox();
        return pending.savepointInProgress();
    }

    /**
     * A mark of the checkpoints started so far: every checkpoint started after it was taken has
     * its plan made and its tasks triggered after that moment (see {@link #pendingCheckpointStartedAfter}).
     */
    public long startMark() {
        mainThread.assertRunningInMailbox();
        return pending.startMark();
    }

    /**
     * The result of the oldest pending checkpoint (not a savepoint) started after {@code mark}
     * was taken ({@link #startMark}), if there is one.
     */
    public Optional<CompletableFuture<CompletedCheckpoint>> pendingCheckpointStartedAfter(long mark) {
        mainThread.assertRunningInMailbox();
        return pending.checkpointStartedAfter(mark);
    }

    public int pendingCount() {
        mainThread.assertRunningInMailbox();
        return pending.size();
    }

    public CheckpointFailureManager failureManager() {
        return failures.manager();
    }

    /** The coordinator's side of {@link CheckpointProgress}: starter and acknowledgements end checkpoints here. */
    private final class Progress implements CheckpointProgress {
        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean checkpointsFull() {
            return restorer.checkpointsFull();
        }

        @Override
        public void abort(PendingCheckpoint checkpoint, CheckpointFailure failure) {
            CheckpointCoordinator.this.abort(checkpoint, failure);
        }

        @Override
        public void allAcknowledged(PendingCheckpoint checkpoint) {
            finalizeCheckpoint(checkpoint);
        }
    }
}

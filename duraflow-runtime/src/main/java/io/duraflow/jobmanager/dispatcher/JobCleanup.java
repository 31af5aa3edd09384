package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.ResourceManager;

import io.duraflow.config.Configuration;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.JobResultEntryExistsException;
import io.duraflow.util.Failpoints;
import io.duraflow.mailbox.Mailbox;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a job, one {@link CleanupState} machine per job: its result becomes durable (a
 * DIRTY entry) before anyone is told the outcome, then the TaskManagers release the job's
 * partitions ({@link PartitionRelease}) and its durable resources are deleted ({@link
 * JobResourceDeletion}: checkpoints, job graph, directory, checkpoint id counter), and only when
 * every step succeeded is the entry marked CLEAN; a failed attempt is retried per the cleanup
 * strategy. Every step is idempotent, so a new leader simply runs the cleanup of every DIRTY
 * entry again.
 *
 * <p>State on the main thread; store I/O on the dispatcher's I/O executor, each durable write
 * preceded by a leadership check.
 */
final class JobCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(JobCleanup.class);

    private final Dispatcher.Services services;
    private final ResourceManager resourceManager;
    private final Mailbox mainThread;
    private final java.util.function.LongSupplier clock;
    private final Runnable requireLeadership;
    /** True once the dispatcher's leadership ended: nothing happens after that. */
    private final BooleanSupplier closed;
    /** Told on the main thread when a result is durable, before anyone can see it. */
    private final java.util.function.Consumer<JobResultEntry> resultStored;
    private final Map<String, CleanupState> states = new HashMap<>();
    private final PartitionRelease partitionRelease;
    private final JobResourceDeletion resources;

    JobCleanup(Configuration clusterConfig, Dispatcher.Services services, ResourceManager resourceManager,
            Mailbox mainThread,
            java.util.function.LongSupplier clock, Runnable requireLeadership, BooleanSupplier closed,
            java.util.function.Consumer<JobResultEntry> resultStored) {
        this.services = services;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.requireLeadership = requireLeadership;
        this.closed = closed;
        this.resultStored = resultStored;
        this.partitionRelease = new PartitionRelease(resourceManager);
        this.resources = new JobResourceDeletion(clusterConfig, services);
    }

    /**
     * The job's cleanup while it runs, waits for a retry or gave up; null once it is done (a done
     * job is one whose result is known: see {@link Dispatcher#cleanupState}) or if it never ran
     * here. Done states are not kept, so this map holds only jobs whose cleanup is not over.
     */
    CleanupState state(String jobId) {
        return states.get(jobId);
    }

    /**
     * Stores {@code entry} as DIRTY once {@code before} completed (say, the job's event log is
     * closed), then runs the cleanup. If the write fails, leadership is given up: another
     * JobManager decides, and nobody was told an outcome that is not durable.
     */
    void storeResultAndCleanUp(JobResultEntry entry, CompletableFuture<?> before) {
        String jobId = entry.jobId();
        transition(jobId, new CleanupState.StoringResult());
        before.exceptionally(e -> null).thenApplyAsync(ignored -> {
            Failpoints.hit("dispatcher.before-dirty-result");
            requireLeadership.run();
            try {
                return storeDirty(entry);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, services.io()).whenCompleteAsync((durable, error) -> {
            if (closed.getAsBoolean()) {
                return;
            }
            if (error != null) {
                states.remove(jobId);
                LOG.error("Cannot write the result of job {} ({}); giving up leadership so that another JobManager"
                        + " decides", jobId, Dispatcher.describe(error));
                services.giveUpLeadership().run();
                return;
            }
            LOG.info("Job {} ended as {}; result stored", jobId, durable.state());
            resultStored.accept(durable);
            run(jobId, 1);
        }, mainThread);
    }

    /**
     * Writes the DIRTY entry; if the job has one already, that one is the job's result. Results
     * are write-once and the first one wins: a deposed leader may have completed a write it checked
     * before it lost leadership (see the README's guarantee), and every leader adopts the stored
     * result, so memory and store never disagree.
     */
    private JobResultEntry storeDirty(JobResultEntry entry) throws IOException {
        try {
            services.results().createDirtyResult(entry);
            return entry;
        } catch (JobResultEntryExistsException e) {
            JobResultEntry stored = services.results().getResult(entry.jobId()).orElse(entry);
            LOG.warn("Job {} already has a result entry ({}); keeping it, not this run's {}", entry.jobId(),
                    stored.state(), entry.state());
            return stored;
        }
    }

    /** A DIRTY entry left by an earlier leader: only the cleanup is left to do. */
    void resumeCleanup(String jobId) {
        run(jobId, 1);
    }

    /**
     * One attempt: the partitions are released (main thread, {@link PartitionRelease}) while the
     * durable resources are deleted (I/O, {@link JobResourceDeletion}); only if both succeeded is
     * the entry marked CLEAN. Both always run to their end, so attempts never overlap.
     */
    private void run(String jobId, int attempt) {
        transition(jobId, new CleanupState.Running(attempt));
        CompletableFuture<Void> released = partitionRelease.release(jobId);
        CompletableFuture<Void> deleted = CompletableFuture.runAsync(() -> {
            Failpoints.hit("dispatcher.before-cleanup");
            requireLeadership.run();
            try {
                resources.deleteAll(jobId);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.io());
        CompletableFuture.allOf(released, deleted).thenRunAsync(() -> {
            requireLeadership.run();
            try {
                services.results().markResultAsClean(jobId);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, services.io()).whenCompleteAsync((ignored, error) -> {
            if (closed.getAsBoolean()) {
                return;
            }
            if (error == null) {
                transition(jobId, new CleanupState.Done());
                states.remove(jobId);
                LOG.info("Job {} cleaned up", jobId);
                services.io().execute(() -> Failpoints.hit("dispatcher.after-clean"));
                return;
            }
            String cause = Dispatcher.describe(error);
            OptionalLong delay = services.cleanupPolicy().delayBeforeAttempt(attempt);
            if (delay.isEmpty()) {
                transition(jobId, new CleanupState.GaveUp(attempt, cause));
                LOG.error("Cleanup of job {} failed after {} attempts ({}); its result stays DIRTY and the next leader"
                        + " completes it", jobId, attempt, cause);
                return;
            }
            transition(jobId, new CleanupState.Retrying(attempt, cause, clock.getAsLong() + delay.getAsLong()));
            LOG.warn("Cleanup of job {} failed ({}); retrying in {} ms", jobId, cause, delay.getAsLong());
            mainThread.schedule(() -> {
                if (!closed.getAsBoolean()) {
                    run(jobId, attempt + 1);
                }
            }, delay.getAsLong());
        }, mainThread);
    }

    /** The one place a cleanup state changes; an illegal step is a bug and throws. */
    private void transition(String jobId, CleanupState next) {
        CleanupState current = states.get(jobId);
        boolean legal = current == null
                ? next instanceof CleanupState.StoringResult || next.equals(new CleanupState.Running(1))
                : current.allows(next);
        if (!legal) {
            throw new IllegalStateException("job " + jobId + ": cleanup cannot go from "
                    + (current == null ? "nothing" : current.describe()) + " to " + next.describe());
        }
        states.put(jobId, next);
        LOG.debug("Job {} cleanup: {}", jobId, next.describe());
    }

}

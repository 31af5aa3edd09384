package io.duraflow.jobmanager;

import io.duraflow.config.Configuration;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.JobResultEntryExistsException;
import io.duraflow.util.Failpoints;
import io.duraflow.util.MainThreadExecutor;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a job, one {@link CleanupState} machine per job: its result becomes durable (a
 * DIRTY entry) before anyone is told the outcome, then the job's partitions, job graph and
 * directory are deleted and the entry is marked CLEAN, retried per the cleanup strategy. Every
 * step is idempotent, so a new leader simply runs the cleanup of every DIRTY entry again.
 *
 * <p>State on the main thread; store I/O on the dispatcher's I/O executor, each durable write
 * preceded by a leadership check.
 */
final class JobCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(JobCleanup.class);

    private final Dispatcher.Services services;
    /** The cluster's configuration, merged with a job's overrides to find its checkpoints. */
    private final Configuration clusterConfig;
    private final ResourceManager resourceManager;
    private final MainThreadExecutor mainThread;
    private final java.util.function.LongSupplier clock;
    private final Runnable requireLeadership;
    /** True once the dispatcher's leadership ended: nothing happens after that. */
    private final BooleanSupplier closed;
    /** Told on the main thread when a result is durable, before anyone can see it. */
    private final java.util.function.Consumer<JobResultEntry> resultStored;
    private final Map<String, CleanupState> states = new HashMap<>();

    JobCleanup(Configuration clusterConfig, Dispatcher.Services services, ResourceManager resourceManager,
            MainThreadExecutor mainThread,
            java.util.function.LongSupplier clock, Runnable requireLeadership, BooleanSupplier closed,
            java.util.function.Consumer<JobResultEntry> resultStored) {
        this.clusterConfig = clusterConfig;
        this.services = services;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.requireLeadership = requireLeadership;
        this.closed = closed;
        this.resultStored = resultStored;
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

    private void run(String jobId, int attempt) {
        transition(jobId, new CleanupState.Running(attempt));
        for (String tmId : resourceManager.taskManagers()) {
            resourceManager.releasePartitions(tmId, jobId, List.of());
        }
        CompletableFuture.runAsync(() -> {
            Failpoints.hit("dispatcher.before-cleanup");
            try {
                requireLeadership.run();
                deleteCheckpoints(jobId);
                services.jobGraphs().remove(jobId);
                services.jobDirectories().fileSystem().deleteRecursively(
                        services.jobDirectories().jobDirectory(jobId));
                requireLeadership.run();
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

    /**
     * The retention step ({@link CheckpointRetentionStep}); nothing to do once the job graph is
     * gone (an earlier attempt got past this step) or unreadable (the job failed, which keeps them).
     */
    private void deleteCheckpoints(String jobId) throws IOException {
        java.util.Optional<io.duraflow.jobstore.SubmittedJob> job;
        try {
            job = services.jobGraphs().get(jobId);
        } catch (IOException e) {
            LOG.warn("Job {}: not deleting its checkpoints: its job graph cannot be read ({})", jobId, e.getMessage());
            return;
        }
        java.util.Optional<JobResultEntry> result = services.results().getResult(jobId);
        if (job.isPresent() && result.isPresent()) {
            CheckpointRetentionStep.run(clusterConfig, job.get().config(), jobId, result.get().state(),
                    services.jobDirectories().fileSystem(), services.jobDirectories().jobDirectory(jobId));
        }
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

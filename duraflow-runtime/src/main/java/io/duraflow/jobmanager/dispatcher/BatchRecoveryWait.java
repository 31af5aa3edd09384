package io.duraflow.jobmanager.dispatcher;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.JobMasterState;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.AdoptionPlanner;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.recovery.WantedPartitions;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch part of a take-over ({@link StoredJobRecovery}): a recovered batch job with a job
 * event log waits until every partition it could use is reported by a TaskManager, and every
 * TaskManager the log says runs its current attempts registered (or the previous-worker timeout
 * passed), then plans its recovery ({@link AdoptionPlanner#planBatch} over the RecoveryPlanner):
 * it keeps what survived and runs only the rest. Finishes that registering TaskManagers carried
 * from earlier leaderships join the log before the plan ({@link #takeEarlierFinishes}). A job
 * whose recovery fails, or that has no usable log, runs again from the start.
 *
 * <p>Threading: main thread; event log deletion runs on the I/O executor.
 */
final class BatchRecoveryWait {
    private static final Logger LOG = LoggerFactory.getLogger(BatchRecoveryWait.class);

    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final ResourceManager resourceManager;
    private final KeptTasks keptTasks;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;
    private final Map<String, PendingRecovery> pending = new LinkedHashMap<>();

    BatchRecoveryWait(Dispatcher.Services services, JobRegistry registry, JobFactory factory,
            ResourceManager resourceManager, KeptTasks keptTasks, Mailbox mainThread, LongSupplier clock,
            BooleanSupplier closed) {
        this.services = services;
        this.registry = registry;
        this.factory = factory;
        this.resourceManager = resourceManager;
        this.keptTasks = keptTasks;
        this.mainThread = mainThread;
        this.clock = clock;
        this.closed = closed;
    }

    /** A recovered job waiting for the TaskManagers that hold its finished partitions. */
    private static final class PendingRecovery {
        final JobMaster job;
        final JobFactory.Built built;
        final List<JobEvent> events;
        final long waitMs;
        /** Set when this leader is published: from then on the job waits at most {@link #waitMs}. */
        long deadlineMs = Long.MAX_VALUE;
        /** The partitions worth waiting for; computed once, again only when an earlier finish adds an event. */
        Set<String> wanted;
        /** TaskManagers the log says run tasks of the job's current attempts: worth waiting for, to adopt them. */
        Set<String> running;

        /** Earlier finishes appended to the job's writer whose flush has not completed yet. */
        final List<JobEvent> unconfirmed = new ArrayList<>();

        PendingRecovery(JobMaster job, JobFactory.Built built, List<JobEvent> events, long waitMs) {
            this.job = job;
            this.built = built;
            // Grows by the finishes TaskManagers carry from earlier leaderships (takeEarlierFinishes).
            this.events = new ArrayList<>(events);
            this.waitMs = waitMs;
        }
    }

    /** The job waits for its TaskManagers; its wait of {@code waitMs} starts with {@link #start}. */
    void await(JobMaster job, JobFactory.Built built, List<JobEvent> events, long waitMs) {
        pending.put(job.jobId(), new PendingRecovery(job, built, events, waitMs));
    }

    /** This leader is published: each waiting job's wait starts now. */
    void start(long nowMs) {
        for (PendingRecovery recovery : pending.values()) {
            recovery.deadlineMs = nowMs + recovery.waitMs;
        }
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    boolean isWaiting(String jobId) {
        return pending.containsKey(jobId);
    }

    /** Plans the recovery of each waiting job whose partitions and TaskManagers are there, or whose wait is over. */
    void check(long now) {
        for (Map.Entry<String, PendingRecovery> entry : new ArrayList<>(pending.entrySet())) {
            PendingRecovery recovery = entry.getValue();
            JobMaster job = recovery.job;
            Map<String, String> held = resourceManager.heldPartitions(job.jobId());
            try {
                if (recovery.wanted == null) {
                    recovery.wanted = WantedPartitions.of(job.graph(), recovery.events);
                    recovery.running = AdoptionPlanner.taskManagersRunning(job.graph(), recovery.events);
                }
                boolean allThere = held.keySet().containsAll(recovery.wanted)
                        && resourceManager.taskManagers().containsAll(recovery.running);
                if (!allThere && now < recovery.deadlineMs) {
                    continue;
                }
                pending.remove(entry.getKey());
                recoverWithAdoption(job, recovery, held);
            } catch (Exception e) {
                pending.remove(entry.getKey());
                LOG.error("Recovering job {} failed ({}); it runs again from the start", job.jobId(), e.toString());
                releaseAllHeld(job.jobId());
                keptTasks.cancelKeptTasks(job.jobId());
                restartFresh(recovery, e);
            }
        }
    }

    /**
     * Batch job recovery with adoption: finished tasks whose output is still there stay finished,
     * tasks TaskManagers kept running are adopted where {@link AdoptionPlanner} proves it correct,
     * the rest run again; kept tasks that are not adopted are cancelled.
     */
    private void recoverWithAdoption(JobMaster job, PendingRecovery recovery, Map<String, String> held)
            throws Exception {
        String jobId = job.jobId();
        List<ReportedTask> reports = resourceManager.reportedTasks(jobId);
        AdoptionPlan adoption = AdoptionPlanner.planBatch(job.graph(), recovery.events, held, reports, Set.of());
        RecoveryPlan plan = adoption.recovery();
        int restored = job.restore(plan);
        plan.notes().forEach(note -> LOG.info("Job {}: {}", jobId, note));
        List<Execution> adopted = job.adopt(adoption, resourceManager::address);
        if (!reports.isEmpty()) {
            // One line per subtask: at INFO for small jobs, where it explains each decision.
            boolean detail = adoption.notes().size() <= 64;
            LOG.info("Job {}: {}", jobId, adoption.notes().get(0));
            for (String note : adoption.notes().subList(1, adoption.notes().size())) {
                if (detail) {
                    LOG.info("Job {}: {}", jobId, note);
                } else {
                    LOG.debug("Job {}: {}", jobId, note);
                }
            }
        }
        Set<String> adoptedNames = new HashSet<>();
        for (Execution execution : adopted) {
            adoptedNames.add(execution.tmId() + "/" + Rpc.describe(execution.attemptId()));
        }
        for (ReportedTask report : reports) {
            AttemptId attempt = KeptTasks.attemptOf(jobId, report);
            if (!adoptedNames.contains(report.tmId() + "/" + Rpc.describe(attempt))) {
                resourceManager.cancelHeld(report.tmId(), attempt);
            }
        }
        keptTasks.tellAdopted(job, adopted);
        releaseUnused(jobId, plan, held);
        LOG.info("Job {} recovered: {} tasks kept their finished output, {} adopted running, {} run again", jobId,
                restored, adopted.size(), plan.nextAttempts().size());
        job.start();
    }

    /** Replaces a job whose recovery failed by a fresh one that starts from the beginning. */
    private void restartFresh(PendingRecovery recovery, Exception cause) {
        JobMaster job = recovery.job;
        job.suspend();
        var writer = registry.takeEventWriter(job.jobId());
        if (writer != null) {
            writer.abandon();
        }
        JobFactory.Created fresh = factory.create(recovery.built);
        registry.add(fresh.job(), fresh.writer(), recovery.built.job());
        factory.prepare(fresh.job(), recovery.built)
                .whenComplete((ignored, again) -> {
                    if (closed.getAsBoolean()) {
                        return;
                    }
                    if (again != null) {
                        fresh.job().failBeforeStart("recovery failed and the job cannot start again: "
                                + Dispatcher.describe(again));
                    } else {
                        restartFromScratch(fresh.job(), "its recovery failed: " + Dispatcher.describe(cause));
                    }
                });
    }

    /**
     * Deletes the old event log (it describes a run that is abandoned), then starts the job anew.
     * Not before: the job's new writer creates its file with the next free index when it first
     * writes, and a file created before the deletion is either deleted with the old ones or left
     * alone after a gap in the indices, which the next recovery reads as a corrupt log. The new
     * log starts with a RunStarted event, so that even old files that could not be deleted are
     * ignored by the next replay.
     */
    void restartFromScratch(JobMaster job, String reason) {
        FsPath directory = factory.eventLogDirectory(job.jobId());
        FileSystem fileSystem = factory.jobDirectories().fileSystem();
        CompletableFuture.runAsync(() -> {
            try {
                for (FileStatus file : fileSystem.listIfExists(directory)) {
                    fileSystem.deleteRecursively(file.path());
                }
            } catch (IOException e) {
                LOG.warn("Cannot delete the old event log of job {}: {}", job.jobId(), e.getMessage());
            }
        }, services.io()).whenCompleteAsync((ignored, error) -> {
            // Meanwhile leadership may have gone (the job was suspended) or the job was cancelled.
            if (!closed.getAsBoolean() && job.state() == JobMasterState.CREATED) {
                job.logRunStarted(reason);
                job.start();
            }
        }, mainThread);
    }

    /** The job was cancelled while it waited: it never resumes; false if it did not wait. */
    boolean cancel(String jobId) {
        if (pending.remove(jobId) == null) {
            return false;
        }
        releaseAllHeld(jobId);
        keptTasks.cancelKeptTasks(jobId);
        return true;
    }

    /** Partitions kept for a job that the recovered job does not use go now (the plan's rule 6). */
    private void releaseUnused(String jobId, RecoveryPlan plan, Map<String, String> held) {
        Map<String, List<String>> byTm = new HashMap<>();
        for (String partitionId : plan.partitionsToRelease()) {
            byTm.computeIfAbsent(held.get(partitionId), k -> new ArrayList<>()).add(partitionId);
        }
        byTm.forEach((tm, ids) -> resourceManager.releaseKeptPartitions(tm, jobId, ids));
    }

    private void releaseAllHeld(String jobId) {
        new HashSet<>(resourceManager.heldPartitions(jobId).values())
                .forEach(tm -> resourceManager.releaseKeptPartitions(tm, jobId, List.of()));
    }

    /**
     * A registering TaskManager's FINISHED reports of earlier leaderships: each that {@link
     * EarlierFinishes} accepts is appended to its job's event log and made durable, and only then
     * added to the job's pending recovery (if it still waits), so that the plan takes the task as
     * finished. Call before the TaskManager is registered: its partitions may let the plan start.
     *
     * @return completes on the main thread once every accepted finish is on disk; fails with
     *     UNAVAILABLE if one could not be written (the TaskManager registers again, and then its
     *     report is ignored, as that job's log no longer records) or leadership ended meanwhile
     */
    CompletableFuture<Void> takeEarlierFinishes(String session, String tmId, String tmAddress,
            List<TaskStateUpdate> reports) {
        List<CompletableFuture<Void>> logged = new ArrayList<>();
        for (TaskStateUpdate report : reports) {
            String jobId = report.getAttempt().getJobId();
            String what = EarlierFinishes.describe(report, tmId);
            PendingRecovery recovery = pending.get(jobId);
            EarlierFinishes.Standing standing = recovery != null ? EarlierFinishes.Standing.RECOVERING
                    : registry.result(jobId).isPresent() ? EarlierFinishes.Standing.ENDED
                    : registry.job(jobId) != null ? EarlierFinishes.Standing.RUNNING : EarlierFinishes.Standing.UNKNOWN;
            List<JobEvent> known = new ArrayList<>();
            if (recovery != null) {
                known.addAll(recovery.events);
                known.addAll(recovery.unconfirmed);
            }
            var decision = EarlierFinishes.decide(report, session, tmId, tmAddress, standing,
                    recovery == null ? null : recovery.job.graph(), known);
            JobEventWriter writer = registry.eventWriter(jobId);
            if (decision instanceof EarlierFinishes.Ignore ignore) {
                LOG.info("Ignoring {}: {}", what, ignore.reason());
            } else if (writer == null || writer.disabled()) {
                LOG.info("Ignoring {}: the job's event log does not record ({})", what,
                        writer == null ? "none" : writer.disabledCause());
            } else {
                JobEvent event = JobEvent.newBuilder().setTimestampMs(clock.getAsLong())
                        .setExecutionFinished(((EarlierFinishes.Accept) decision).event()).build();
                recovery.unconfirmed.add(event);
                writer.append(event);
                logged.add(writer.flush().handleAsync((ignored, error) -> {
                    recovery.unconfirmed.remove(event);
                    if (error != null || closed.getAsBoolean()) {
                        String why = error != null ? "cannot log " + what + ": " + Dispatcher.describe(error)
                                : "this JobManager stopped leading while it logged " + what;
                        throw new CompletionException(Status.UNAVAILABLE.withDescription(why + "; register again")
                                .asRuntimeException());
                    }
                    if (pending.get(jobId) == recovery) {
                        recovery.events.add(event);
                        recovery.wanted = null;
                        LOG.info("Took {} as logged: the recovery keeps that task finished", what);
                    } else {
                        LOG.info("Logged {}, but the job's recovery was planned meanwhile", what);
                    }
                    return null;
                }, mainThread));
            }
        }
        return CompletableFuture.allOf(logged.toArray(CompletableFuture[]::new));
    }
}

package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.StandbyWarmUp;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;

import io.duraflow.config.JobManagerOptions;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.AdoptionPlanner;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlanner;
import io.duraflow.jobmanager.recovery.WantedPartitions;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.JobMasterState;
import io.duraflow.jobstore.CorruptStoreFileException;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over the jobs of an earlier leader, in two phases.
 *
 * <ol>
 *   <li>{@link #recover()}, before this leader is published: finishes the cleanup of DIRTY
 *       entries, re-creates every stored job without a result, and ends as FAILED (with a result
 *       entry and cleanup) each stored job that cannot be re-created: a job graph file that
 *       cannot be read, a class that no longer builds. One bad job never keeps the others, or
 *       the leader, down. Only a store that cannot be listed at all fails the take-over.
 *   <li>{@link #startRecoveredJobs()}, once published: each job with a job event log waits
 *       until every partition it could use is reported by a TaskManager (or the previous-worker
 *       timeout passed), then keeps what survived and runs only the rest; jobs without a usable
 *       log run again from the start. Anything unexpected means a full restart of that job,
 *       never a wrong result.
 * </ol>
 */
public final class StoredJobRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StoredJobRecovery.class);

    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final JobCleanup cleanup;
    private final ResourceManager resourceManager;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;
    private final Map<String, PendingRecovery> pending = new LinkedHashMap<>();
    private final Map<String, PendingTakeover> takeovers = new LinkedHashMap<>();
    /** Whether TaskManagers keep their tasks for a new leader ({@code taskmanager.leader-loss.timeout} > 0). */
    private final boolean adoptionOn;
    private Mailbox.Cancellable recoveryCheck;
    /** Set once this leader is published: from then on recovered jobs may plan. */
    private boolean started;
    /** The jobs this leader took over from stored job graphs (for the metrics' recovery figures). */
    private final java.util.Set<String> recovered = new java.util.HashSet<>();

    /** When this leader was elected; main thread. */
    private long electedAtMs;

    StoredJobRecovery(Dispatcher.Services services, JobRegistry registry, JobFactory factory, JobCleanup cleanup,
            ResourceManager resourceManager, Mailbox mainThread, LongSupplier clock,
            BooleanSupplier closed, boolean adoptionOn) {
        this.adoptionOn = adoptionOn;
        this.services = services;
        this.registry = registry;
        this.factory = factory;
        this.cleanup = cleanup;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.closed = closed;
    }

    /** A stored job and its event log (empty: no log, or it could not be read). */
    private record StoredJob(SubmittedJob job, List<JobEvent> events, String logProblem) {}

    /** A stored job that cannot run again, and why (the cause names the file or the class). */
    private record Unrecoverable(String jobId, Optional<SubmittedJob> job, String cause) {}

    private record Stored(List<JobResultEntry> dirty, List<StoredJob> toRun, List<Unrecoverable> broken) {}

    /** A stored job with its plan built, or the reason it cannot be built. */
    private record Rebuilt(StoredJob stored, JobFactory.Built built, String failure) {}

    /** A recovered streaming job waiting for its TaskManagers to report the tasks they kept (issue 14). */
    private static final class PendingTakeover {
        final JobMaster job;
        final long waitMs;
        long deadlineMs = Long.MAX_VALUE;

        PendingTakeover(JobMaster job, long waitMs) {
            this.job = job;
            this.waitMs = waitMs;
        }
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

    // ------------------------------------------------------------------ phase one

    CompletableFuture<Void> recover(long electedAtMs) {
        this.electedAtMs = electedAtMs;
        return CompletableFuture.supplyAsync(this::readStores, services.io())
                .thenCompose(stored -> rebuildAll(stored.toRun()).thenApply(rebuilt -> Map.entry(stored, rebuilt)))
                .thenComposeAsync(found -> {
                    if (closed.getAsBoolean()) {
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    List<CompletableFuture<Void>> prepared = new ArrayList<>();
                    for (JobResultEntry entry : found.getKey().dirty()) {
                        LOG.info("Job {} ended ({}) under an earlier leader; finishing its cleanup, not running it"
                                + " again", entry.jobId(), entry.state());
                        registry.rememberSummary(entry);
                        cleanup.resumeCleanup(entry.jobId());
                    }
                    for (Unrecoverable broken : found.getKey().broken()) {
                        failStoredJob(broken);
                    }
                    for (Rebuilt rebuilt : found.getValue()) {
                        if (rebuilt.built() == null) {
                            failStoredJob(new Unrecoverable(rebuilt.stored().job().jobId(),
                                    Optional.of(rebuilt.stored().job()), rebuilt.failure()));
                        } else {
                            prepared.add(recoverJob(rebuilt.stored(), rebuilt.built()));
                        }
                    }
                    // Phase one ends once every recovered job started its sources (or failed to).
                    return CompletableFuture.allOf(prepared.toArray(CompletableFuture[]::new));
                }, mainThread);
    }

    /** On an I/O thread: what the stores hold. Only a store that cannot be listed fails it. */
    private Stored readStores() {
        try {
            List<JobResultEntry> dirty = services.results().getDirtyResults();
            List<StoredJob> toRun = new ArrayList<>();
            List<Unrecoverable> broken = new ArrayList<>();
            for (String jobId : services.jobGraphs().jobIds()) {
                if (services.results().hasJobResultEntry(jobId)) {
                    continue;
                }
                try {
                    services.jobGraphs().get(jobId).ifPresent(job -> toRun.add(readEventLog(job)));
                } catch (CorruptStoreFileException e) {
                    broken.add(new Unrecoverable(jobId, Optional.empty(), "its stored job graph is unreadable: "
                            + e.getMessage()));
                }
            }
            return new Stored(dirty, toRun, broken);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }

    /**
     * A standby's rehearsal of {@link #readStores}: the same reads of the job graph store, the job
     * result store and each stored job's event log, whose results are thrown away, so that the
     * code (and the JDK's, Jackson's and protobuf's) is loaded and compiled before a take-over
     * needs it. Only reads that never write: not {@code getDirtyResults}, which may delete a stale
     * file. A standby calls it while it stands by (see {@link StandbyWarmUp}); any thread.
     *
     * @param go checked before each job: false once the standby is elected
     * @return how many event logs it read
     */
    public static int rehearseReads(JobResultStore results, JobGraphStore jobGraphs, JobDirectories directories,
            BooleanSupplier go) throws IOException {
        int logs = 0;
        for (String jobId : jobGraphs.jobIds()) {
            if (!go.getAsBoolean()) {
                break;
            }
            if (results.hasJobResultEntry(jobId) || jobGraphs.get(jobId).isEmpty()) {
                continue;
            }
            FsPath directory = directories.eventLogDirectory(jobId);
            if (directories.fileSystem().exists(directory)) {
                JobEventReader.readAll(directories.fileSystem(), directory);
                logs++;
            }
        }
        return logs;
    }

    /** Builds every stored job's plan on the user-code executor; a job that does not build is not an error here. */
    private CompletableFuture<List<Rebuilt>> rebuildAll(List<StoredJob> toRun) {
        List<CompletableFuture<Rebuilt>> builds = new ArrayList<>();
        for (StoredJob stored : toRun) {
            builds.add(factory.build(stored.job()).handle((built, error) -> error == null
                    ? new Rebuilt(stored, built, null)
                    : new Rebuilt(stored, null, "the stored job cannot be rebuilt: "
                            + Dispatcher.describe(error))));
        }
        return CompletableFuture.allOf(builds.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> builds.stream().map(CompletableFuture::join).toList());
    }

    /** Reads a stored job's event log on an I/O thread; a damaged log means a full restart. */
    private StoredJob readEventLog(SubmittedJob job) {
        FsPath directory = factory.eventLogDirectory(job.jobId());
        FileSystem fileSystem = factory.jobDirectories().fileSystem();
        try {
            if (!fileSystem.exists(directory)) {
                return new StoredJob(job, List.of(), "");
            }
            JobEventReader.ReadResult read = JobEventReader.readAll(fileSystem, directory);
            read.warnings().forEach(w -> LOG.warn("Job {}: {}", job.jobId(), w));
            return new StoredJob(job, read.events(), "");
        } catch (IOException e) {
            return new StoredJob(job, List.of(), e.getMessage());
        }
    }

    /** A stored job that cannot run again ends FAILED: a result entry, then the usual cleanup. */
    private void failStoredJob(Unrecoverable broken) {
        String jobId = broken.jobId();
        if (registry.isKnown(jobId)) {
            LOG.warn("Stored job {} is already known to this leader; not failing it", jobId);
            return;
        }
        LOG.error("Stored job {} cannot be recovered and ends as FAILED: {}", jobId, broken.cause());
        SubmittedJob job = broken.job().orElse(null);
        JobResultEntry entry = new JobResultEntry(jobId, "", job == null ? "" : job.jobClass(), JobOutcome.FAILED,
                job == null ? 0 : job.submittedAtMs(), clock.getAsLong(), broken.cause(), 0,
                job == null ? Map.of() : job.params(), Map.of(), List.of(), List.of());
        cleanup.storeResultAndCleanUp(entry, CompletableFuture.completedFuture(null));
    }

    /** Re-creates a stored job and starts its sources off the main thread; completes on the main thread. */
    private CompletableFuture<Void> recoverJob(StoredJob stored, JobFactory.Built built) {
        SubmittedJob submitted = stored.job();
        if (registry.isKnown(submitted.jobId())) {
            // Requests are turned away until recovery is done, so this cannot happen; never run a job twice.
            LOG.warn("Stored job {} is already known to this leader; not recovering it again", submitted.jobId());
            return CompletableFuture.completedFuture(null);
        }
        JobFactory.Created created = factory.create(built);
        JobMaster job = created.job();
        job.recoveredByLeaderElectedAt(electedAtMs);
        registry.add(job, created.writer(), submitted);
        recovered.add(submitted.jobId());
        return factory.prepare(job, built)
                .handle((ignored, error) -> {
                    if (closed.getAsBoolean()) {
                        return null;
                    }
                    if (error != null) {
                        job.failBeforeStart("the recovered job cannot start: " + Dispatcher.describe(error));
                    } else {
                        resume(job, stored, built);
                    }
                    return null;
                });
    }

    /** A recovered job whose sources started: it waits for its TaskManagers, or runs from the start. */
    private void resume(JobMaster job, StoredJob stored, JobFactory.Built built) {
        SubmittedJob submitted = stored.job();
        if (built.graph().mode() == RuntimeMode.STREAMING) {
            if (!adoptionOn) {
                // Not the batch recovery planner: the job restores its latest completed checkpoint as it starts.
                LOG.info("Recovering streaming job {} ({}) from its latest completed checkpoint", submitted.jobId(),
                        submitted.jobClass());
                job.start();
                return;
            }
            long waitMs = built.config().get(JobManagerOptions.ADOPTION_REPORT_TIMEOUT).toMillis();
            LOG.info("Recovering streaming job {} ({}): waiting up to {} ms for its TaskManagers to report the tasks"
                    + " they kept", submitted.jobId(), submitted.jobClass(), waitMs);
            PendingTakeover takeover = new PendingTakeover(job, waitMs);
            if (started) {
                takeover.deadlineMs = clock.getAsLong() + waitMs;
            }
            takeovers.put(submitted.jobId(), takeover);
            checkPendingRecoveries();
            return;
        }
        boolean recoverable = !stored.events().isEmpty() && registry.eventWriter(submitted.jobId()) != null;
        if (!recoverable) {
            String why = !stored.logProblem().isEmpty() ? "its event log is damaged (" + stored.logProblem() + ")"
                    : "it has no job event log";
            LOG.info("Recovering job {} ({}): it runs again from the start, as {}", submitted.jobId(),
                    submitted.jobClass(), why);
            restartFromScratch(job, why);
            return;
        }
        long waitMs = built.config().get(JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT).toMillis();
        LOG.info("Recovering job {} from {} events; waiting up to {} ms for the TaskManagers holding its output",
                submitted.jobId(), stored.events().size(), waitMs);
        pending.put(submitted.jobId(), new PendingRecovery(job, built, stored.events(), waitMs));
    }

    /**
     * Deletes the old event log (it describes a run that is abandoned), then starts the job anew.
     * Not before: the job's new writer creates its file with the next free index when it first
     * writes, and a file created before the deletion is either deleted with the old ones or left
     * alone after a gap in the indices, which the next recovery reads as a corrupt log. The new
     * log starts with a RunStarted event, so that even old files that could not be deleted are
     * ignored by the next replay.
     */
    private void restartFromScratch(JobMaster job, String reason) {
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

    // ------------------------------------------------------------------ phase two

    /** Whether this leader took the job over from an earlier one (its stored job graph). */
    boolean recovered(String jobId) {
        return recovered.contains(jobId);
    }

    void startRecoveredJobs() {
        started = true;
        long now = clock.getAsLong();
        for (PendingRecovery recovery : pending.values()) {
            recovery.deadlineMs = now + recovery.waitMs;
        }
        for (PendingTakeover takeover : takeovers.values()) {
            takeover.deadlineMs = now + takeover.waitMs;
        }
        checkPendingRecoveries();
    }

    void checkPendingRecoveries() {
        if (closed.getAsBoolean() || (pending.isEmpty() && takeovers.isEmpty()) || !started) {
            return;
        }
        long now = clock.getAsLong();
        checkTakeovers(now);
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
                cancelKeptTasks(job.jobId());
                restartFresh(recovery, e);
            }
        }
        if ((!pending.isEmpty() || !takeovers.isEmpty()) && recoveryCheck == null) {
            recoveryCheck = mainThread.schedule(() -> {
                recoveryCheck = null;
                checkPendingRecoveries();
            }, 100);
        }
    }

    /**
     * Batch job recovery with adoption (issue 14): finished tasks whose output is still there stay
     * finished, tasks TaskManagers kept running are adopted where {@link AdoptionPlanner} proves it
     * correct, the rest run again; kept tasks that are not adopted are cancelled.
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
            AttemptId attempt = attemptOf(jobId, report);
            if (!adoptedNames.contains(report.tmId() + "/" + Rpc.describe(attempt))) {
                resourceManager.cancelHeld(report.tmId(), attempt);
            }
        }
        tellAdopted(job, adopted);
        releaseUnused(jobId, plan, held);
        LOG.info("Job {} recovered: {} tasks kept their finished output, {} adopted running, {} run again", jobId,
                restored, adopted.size(), plan.nextAttempts().size());
        job.start();
    }

    /**
     * Streaming jobs waiting for their kept tasks: each decides once every subtask is reported by
     * a registered TaskManager, or its wait is over (then it decides over what was reported, which
     * falls back to a restore unless everything is there).
     */
    private void checkTakeovers(long now) {
        for (Map.Entry<String, PendingTakeover> entry : new ArrayList<>(takeovers.entrySet())) {
            JobMaster job = entry.getValue().job;
            List<ReportedTask> reports = resourceManager.reportedTasks(job.jobId());
            if (!everySubtaskReported(job, reports) && now < entry.getValue().deadlineMs) {
                continue;
            }
            takeovers.remove(entry.getKey());
            if (job.state() != JobMasterState.CREATED) {
                continue;  // cancelled meanwhile
            }
            if (reports.isEmpty()) {
                LOG.info("Job {}: no TaskManager reported a kept task; it restores its latest completed checkpoint",
                        job.jobId());
                job.start();
                continue;
            }
            job.startTakingOver(reports, takeoverActions(job), resourceManager::address);
        }
    }

    private static boolean everySubtaskReported(JobMaster job, List<ReportedTask> reports) {
        Set<io.duraflow.jobmanager.recovery.ExecutionKey> reported = new HashSet<>();
        reports.forEach(report -> reported.add(report.key()));
        int subtasks = 0;
        for (var vertex : job.graph().vertices()) {
            subtasks += vertex.parallelism();
        }
        return reported.size() >= subtasks;
    }

    /** How a streaming job's takeover acts on the kept tasks: through the resource manager, like a batch adoption. */
    private io.duraflow.jobmanager.jobmaster.failover.TakeoverActions takeoverActions(JobMaster job) {
        String jobId = job.jobId();
        return new io.duraflow.jobmanager.jobmaster.failover.TakeoverActions() {
            @Override
            public void cancel(List<ReportedTask> tasks) {
                for (ReportedTask report : tasks) {
                    resourceManager.cancelHeld(report.tmId(), attemptOf(jobId, report));
                }
            }

            @Override
            public CompletableFuture<Void> adopt(List<Execution> adopted) {
                return tellAdopted(job, adopted);
            }
        };
    }

    /**
     * Tells each TaskManager which of its kept tasks this leader adopted ({@code AdoptTasks}); the
     * tasks of one it cannot tell fail here and run again as failures do. Completes on the main
     * thread once every TaskManager answered or failed.
     */
    private CompletableFuture<Void> tellAdopted(JobMaster job, List<Execution> adopted) {
        Map<String, List<AttemptId>> byTm = new LinkedHashMap<>();
        for (Execution execution : adopted) {
            byTm.computeIfAbsent(execution.tmId(), tm -> new ArrayList<>()).add(execution.attemptId());
        }
        List<CompletableFuture<Void>> told = new ArrayList<>();
        byTm.forEach((tmId, attempts) -> {
            CompletableFuture<Void> answered = new CompletableFuture<>();
            told.add(answered);
            resourceManager.adopt(tmId, attempts, () -> answered.complete(null), error -> {
                job.adoptionFailed(attempts, "TaskManager " + tmId + " could not be told that it was adopted: "
                        + Rpc.message(error));
                answered.complete(null);
            });
        });
        return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new));
    }

    private static AttemptId attemptOf(String jobId, ReportedTask report) {
        return AttemptId.newBuilder().setJobId(jobId).setVertex(report.key().vertex())
                .setSubtask(report.key().subtask()).setAttempt(report.attempt()).build();
    }

    /** Kept running tasks of a job that is not recovered with them: cancelled. */
    private void cancelKeptTasks(String jobId) {
        for (ReportedTask report : resourceManager.reportedTasks(jobId)) {
            resourceManager.cancelHeld(report.tmId(), attemptOf(jobId, report));
        }
    }

    /** Whether the job waits for its TaskManagers before it resumes (its kept tasks are not strays then). */
    boolean isPending(String jobId) {
        return pending.containsKey(jobId) || takeovers.containsKey(jobId);
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

    /** The job was cancelled while it waited for its TaskManagers: it never resumes. */
    boolean cancelPending(String jobId) {
        if (takeovers.remove(jobId) != null) {
            cancelKeptTasks(jobId);
            return true;
        }
        if (pending.remove(jobId) == null) {
            return false;
        }
        releaseAllHeld(jobId);
        cancelKeptTasks(jobId);
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

    /** A TaskManager came back with partitions: those of jobs nobody recovers are released. */
    void taskManagerRegistered(String tmId, List<HeldPartition> held) {
        for (AttemptId attempt : resourceManager.heldTasksOn(tmId)) {
            if (!isPending(attempt.getJobId())) {
                LOG.info("TaskManager {} kept {} running, which no recovering job here can adopt; cancelling it", tmId,
                        Rpc.describe(attempt));
                resourceManager.cancelHeld(tmId, attempt);
            }
        }
        Set<String> releaseJobs = new HashSet<>();
        for (HeldPartition partition : held) {
            if (!pending.containsKey(partition.getJobId())) {
                releaseJobs.add(partition.getJobId());
            }
        }
        for (String jobId : releaseJobs) {
            resourceManager.releaseKeptPartitions(tmId, jobId, List.of());
        }
        checkPendingRecoveries();
    }
}

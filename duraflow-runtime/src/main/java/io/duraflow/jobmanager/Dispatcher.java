package io.duraflow.jobmanager;

import io.duraflow.config.Configuration;
import io.duraflow.config.ClusterOptions;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.config.RestartStrategyType;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlanner;
import io.duraflow.jobmanager.events.RecordingJobEventLog;
import io.duraflow.jobmanager.scheduler.JobMaster;
import io.duraflow.jobmanager.scheduler.JobMasterState;
import io.duraflow.jobmanager.scheduler.JobSettings;
import io.duraflow.jobmanager.store.CleanupRetryPolicy;
import io.duraflow.jobmanager.store.JobGraphStore;
import io.duraflow.jobmanager.store.JobIds;
import io.duraflow.jobmanager.store.JobResultEntry;
import io.duraflow.jobmanager.store.JobResultEntryExistsException;
import io.duraflow.jobmanager.store.JobResultStore;
import io.duraflow.jobmanager.store.SubmittedJob;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobEventLogStatus;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.util.Failpoints;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts jobs, runs one {@link JobMaster} per job, and owns their durable life cycle for one
 * leadership session:
 * <pre>
 *   submit:     no job result entry for the id -> job graph stored -> JobMaster runs
 *   terminal:   DIRTY job result written (failure: give up leadership) -> result visible
 *               -> cleanup (partitions, job graph, job directory), retried -> entry CLEAN
 *   leadership: DIRTY entries are cleaned up, stored job graphs without a result run again
 * </pre>
 * State lives on the main thread; store I/O runs on {@code io} and every durable write first
 * checks with the election that this session still leads.
 */
public final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** What a dispatcher needs around it. */
    public record Services(JobResultStore results, JobGraphStore jobGraphs, Function<String, Path> jobDirectory,
            CleanupRetryPolicy cleanupPolicy, Executor io, Runnable giveUpLeadership,
            java.util.function.Predicate<String> stillLeads) {}

    private final Configuration clusterConfig;
    private final String sessionId;
    private final ResourceManager resourceManager;
    private final Scheduler mainThread;
    private final LongSupplier clock;
    private final Services services;
    private final Map<String, JobMaster> jobs = new LinkedHashMap<>();
    /** Results this dispatcher persisted or recovered, by job id. */
    private final Map<String, JobResultEntry> results = new LinkedHashMap<>();
    private final Set<String> pendingSubmissions = new HashSet<>();
    private final Map<String, String> cleanupState = new HashMap<>();
    /** The event log writers of this leadership's jobs. */
    private final Map<String, JobEventWriter> eventWriters = new HashMap<>();
    private boolean closed;

    public Dispatcher(Configuration clusterConfig, String sessionId, ResourceManager resourceManager,
            Scheduler mainThread, LongSupplier clock, Services services) {
        this.clusterConfig = clusterConfig;
        this.sessionId = sessionId;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.services = services;
        resourceManager.addLossListener(this::taskManagerLost);
        resourceManager.addSlotListener(this::scheduleAll);
        resourceManager.addRegistrationListener(this::taskManagerRegistered);
    }

    // ------------------------------------------------------------------ recovery

    /** A stored job and its event log (empty: no log, or it could not be read). */
    private record StoredJob(SubmittedJob job, List<JobEvent> events, String logProblem) {}

    private record Recovered(List<JobResultEntry> dirty, List<StoredJob> toRun) {}

    /** A recovered job waiting for the TaskManagers that hold its finished partitions. */
    private static final class PendingRecovery {
        final JobMaster job;
        final List<JobEvent> events;
        final long waitMs;
        /** Set when this leader is published: from then on the job waits at most {@link #waitMs}. */
        long deadlineMs = Long.MAX_VALUE;
        /** The partitions worth waiting for; the graph and log do not change, so computed once. */
        Set<String> wanted;

        PendingRecovery(JobMaster job, List<JobEvent> events, long waitMs) {
            this.job = job;
            this.events = events;
            this.waitMs = waitMs;
        }
    }

    private final Map<String, PendingRecovery> pendingRecoveries = new LinkedHashMap<>();
    private Scheduler.Cancellable recoveryCheck;
    /** Set once this leader is published: from then on recovered jobs may plan. */
    private boolean recoveriesStarted;

    /**
     * Phase one of taking over, before this leader is published: finishes the cleanup of DIRTY
     * jobs and re-creates the stored jobs that have no result. Jobs with a job event log wait
     * (see {@link #startRecoveredJobs}); the others run again from the start.
     */
    public CompletableFuture<Void> recover() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                List<JobResultEntry> dirty = services.results().getDirtyResults();
                List<StoredJob> toRun = new ArrayList<>();
                for (String jobId : services.jobGraphs().jobIds()) {
                    if (services.results().hasJobResultEntry(jobId)) {
                        continue;
                    }
                    Optional<SubmittedJob> stored = services.jobGraphs().get(jobId);
                    if (stored.isPresent()) {
                        toRun.add(readEventLog(stored.get()));
                    }
                }
                return new Recovered(dirty, toRun);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, services.io()).thenAcceptAsync(recovered -> {
            if (closed) {
                return;
            }
            for (JobResultEntry entry : recovered.dirty()) {
                LOG.info("Job {} ended ({}) under an earlier leader; finishing its cleanup, not running it again",
                        entry.jobId(), entry.state());
                results.put(entry.jobId(), entry);
                runCleanup(entry.jobId(), 0);
            }
            for (StoredJob stored : recovered.toRun()) {
                recoverJob(stored);
            }
        }, mainThread);
    }

    /** Reads a stored job's event log on an I/O thread; a damaged log means a full restart. */
    private StoredJob readEventLog(SubmittedJob job) {
        Path directory = services.jobDirectory().apply(job.jobId()).resolve(JOB_EVENTS_DIRECTORY);
        if (!Files.isDirectory(directory)) {
            return new StoredJob(job, List.of(), "");
        }
        try {
            JobEventReader.ReadResult read = JobEventReader.readAll(directory);
            read.warnings().forEach(w -> LOG.warn("Job {}: {}", job.jobId(), w));
            return new StoredJob(job, read.events(), "");
        } catch (IOException e) {
            return new StoredJob(job, List.of(), e.getMessage());
        }
    }

    private void recoverJob(StoredJob stored) {
        SubmittedJob submitted = stored.job();
        if (jobs.containsKey(submitted.jobId()) || pendingSubmissions.contains(submitted.jobId())) {
            // Requests are turned away until recovery is done, so this cannot happen; never run a job twice.
            LOG.warn("Stored job {} is already known to this leader; not recovering it again", submitted.jobId());
            return;
        }
        JobMaster job;
        try {
            job = createJobMaster(submitted.jobId(), submitted.jobClass(), submitted.params(), submitted.config(),
                    submitted.parallelism(), submitted.submittedAtMs());
        } catch (StatusRuntimeException e) {
            LOG.error("Stored job {} cannot be rebuilt: {}", submitted.jobId(), e.getStatus().getDescription());
            return;
        }
        jobs.put(submitted.jobId(), job);
        try {
            job.prepare();
        } catch (Exception e) {
            job.failBeforeStart("the recovered job cannot start: " + e.getMessage());
            return;
        }
        boolean recoverable = !stored.events().isEmpty() && eventWriters.containsKey(submitted.jobId());
        if (!recoverable) {
            String why = !stored.logProblem().isEmpty() ? "its event log is damaged (" + stored.logProblem() + ")"
                    : "it has no job event log";
            LOG.info("Recovering job {} ({}): it runs again from the start, as {}", submitted.jobId(),
                    submitted.jobClass(), why);
            restartFromScratch(job, why);
            return;
        }
        long waitMs = jobConfig(submitted.config()).get(JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT).toMillis();
        LOG.info("Recovering job {} from {} events; waiting up to {} ms for the TaskManagers holding its output",
                submitted.jobId(), stored.events().size(), waitMs);
        pendingRecoveries.put(submitted.jobId(), new PendingRecovery(job, stored.events(), waitMs));
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
        Path directory = services.jobDirectory().apply(job.jobId()).resolve(JOB_EVENTS_DIRECTORY);
        CompletableFuture.runAsync(() -> {
            try (Stream<Path> files = Files.exists(directory) ? Files.list(directory) : Stream.empty()) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                LOG.warn("Cannot delete the old event log of job {}: {}", job.jobId(), e.getMessage());
            }
        }, services.io()).whenCompleteAsync((ignored, error) -> {
            // Meanwhile leadership may have gone (the job was suspended) or the job was cancelled.
            if (!closed && job.state() == JobMasterState.CREATED) {
                job.logRunStarted(reason);
                job.start();
            }
        }, mainThread);
    }

    /**
     * Phase two, once this leader is published and TaskManagers register: each recovered job
     * waits until every partition it could use has been reported (or the previous-worker timeout
     * passed), then keeps what survived and runs only the rest. Anything unexpected means a
     * full restart of that job, never a wrong result.
     */
    public void startRecoveredJobs() {
        recoveriesStarted = true;
        long now = clock.getAsLong();
        for (PendingRecovery pending : pendingRecoveries.values()) {
            pending.deadlineMs = now + pending.waitMs;
        }
        checkPendingRecoveries();
    }

    private void checkPendingRecoveries() {
        if (closed || pendingRecoveries.isEmpty() || !recoveriesStarted) {
            return;
        }
        long now = clock.getAsLong();
        for (Map.Entry<String, PendingRecovery> entry : new ArrayList<>(pendingRecoveries.entrySet())) {
            PendingRecovery pending = entry.getValue();
            JobMaster job = pending.job;
            Map<String, String> held = resourceManager.heldPartitions(job.jobId());
            try {
                if (pending.wanted == null) {
                    pending.wanted = wantedPartitions(job.graph(), pending.events);
                }
                if (!held.keySet().containsAll(pending.wanted) && now < pending.deadlineMs) {
                    continue;
                }
                pendingRecoveries.remove(entry.getKey());
                RecoveryPlan plan = RecoveryPlanner.plan(job.graph(), pending.events, held);
                int restored = job.restore(plan);
                plan.notes().forEach(note -> LOG.info("Job {}: {}", job.jobId(), note));
                releaseUnused(job.jobId(), plan, held);
                LOG.info("Job {} recovered: {} tasks kept their finished output, {} run again", job.jobId(), restored,
                        plan.nextAttempts().size());
                job.start();
            } catch (Exception e) {
                pendingRecoveries.remove(entry.getKey());
                LOG.error("Recovering job {} failed ({}); it runs again from the start", job.jobId(), e.toString());
                releaseAllHeld(job.jobId());
                JobMaster fresh = null;
                try {
                    discard(job);
                    fresh = createJobMaster(job.jobId(), job.jobClass(), job.params(), job.config(),
                            job.settings().defaultParallelism(), job.status().getSubmittedAtMs());
                    fresh.prepare();
                } catch (Exception again) {
                    // The job fails for good; the one that fails is the one the dispatcher knows, so
                    // that its status, result and event writer stay consistent.
                    JobMaster failed = fresh != null ? fresh : job;
                    jobs.put(job.jobId(), failed);
                    failed.failBeforeStart("recovery failed and the job cannot start again: " + again.getMessage());
                    continue;
                }
                jobs.put(job.jobId(), fresh);
                restartFromScratch(fresh, "its recovery failed: " + e.getMessage());
            }
        }
        if (!pendingRecoveries.isEmpty() && recoveryCheck == null) {
            recoveryCheck = mainThread.schedule(() -> {
                recoveryCheck = null;
                checkPendingRecoveries();
            }, 100);
        }
    }

    /**
     * The partitions worth waiting for: if every partition ever recorded were still there, the
     * recovered job would keep these executions, and some consumer of each still has to read it.
     */
    static Set<String> wantedPartitions(JobGraph graph, List<JobEvent> events) {
        Map<String, String> everything = new HashMap<>();
        for (JobEvent event : events) {
            if (event.hasExecutionFinished()) {
                for (var partition : event.getExecutionFinished().getPartitionsList()) {
                    everything.put(partition.getPartitionId(), event.getExecutionFinished().getTmId());
                }
            }
        }
        RecoveryPlan optimistic = RecoveryPlanner.plan(graph, events, everything);
        Set<Integer> verticesWithWork = new HashSet<>();
        for (var vertex : graph.vertices()) {
            var plan = optimistic.vertices().get(vertex.id());
            int parallelism = vertex.parallelism() > 0 ? vertex.parallelism() : plan == null ? -1 : plan.parallelism();
            int kept = 0;
            for (var key : optimistic.restored().keySet()) {
                if (key.vertex() == vertex.id()) {
                    kept++;
                }
            }
            if (parallelism < 0 || kept < parallelism) {
                verticesWithWork.add(vertex.id());
            }
        }
        Set<String> wanted = new HashSet<>();
        for (var restored : optimistic.restored().values()) {
            for (var partition : restored.partitions()) {
                int consumer = graph.edge(partition.getEdgeId()).consumer();
                if (verticesWithWork.contains(consumer)) {
                    wanted.add(partition.getPartitionId());
                }
            }
        }
        return wanted;
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

    /** A TaskManager came back with partitions: those of jobs nobody recovers are released. */
    private void taskManagerRegistered(String tmId, List<io.duraflow.rpc.proto.HeldPartition> held) {
        Set<String> releaseJobs = new HashSet<>();
        for (io.duraflow.rpc.proto.HeldPartition partition : held) {
            if (!pendingRecoveries.containsKey(partition.getJobId())) {
                releaseJobs.add(partition.getJobId());
            }
        }
        for (String jobId : releaseJobs) {
            resourceManager.releaseKeptPartitions(tmId, jobId, List.of());
        }
        checkPendingRecoveries();
    }

    // ------------------------------------------------------------------ submission

    public CompletableFuture<SubmitJobResponse> submit(SubmitJobRequest request) {
        String jobId = request.getJobId().isEmpty() ? UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                : request.getJobId();
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId
                    + "': use 1-64 letters, digits, '.', '_' or '-'").asRuntimeException();
        }
        rejectKnown(jobId);
        Configuration jobConfig = jobConfig(request.getConfigMap());
        int parallelism = request.getParallelism() > 0 ? request.getParallelism()
                : jobConfig.get(ExecutionOptions.PARALLELISM_DEFAULT);
        long submittedAt = clock.getAsLong();
        JobMaster job = createJobMaster(jobId, request.getJobClass(), request.getParamsMap(), request.getConfigMap(),
                parallelism, submittedAt);
        try {
            job.prepare();
        } catch (Exception e) {
            discard(job);
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            throw Status.INVALID_ARGUMENT.withDescription("job " + jobId + " cannot start: " + message)
                    .asRuntimeException();
        }
        pendingSubmissions.add(jobId);
        SubmittedJob record = new SubmittedJob(jobId, request.getJobClass(), request.getParamsMap(),
                request.getConfigMap(), parallelism, submittedAt);
        return CompletableFuture.supplyAsync(() -> {
            try {
                requireLeadership();
                Optional<JobResultEntry> existing = services.results().getResult(jobId);
                if (existing.isEmpty()) {
                    requireLeadership();
                    services.jobGraphs().put(record);
                }
                return existing;
            } catch (IOException e) {
                throw new CompletionException(Status.UNAVAILABLE.withDescription("cannot store job " + jobId + ": "
                        + e.getMessage()).asRuntimeException());
            }
        }, services.io()).handleAsync((existing, error) -> {
            pendingSubmissions.remove(jobId);
            if (error != null) {
                discard(job);
                throw error instanceof CompletionException ? (CompletionException) error : new CompletionException(error);
            }
            if (existing.isPresent()) {
                discard(job);
                results.put(jobId, existing.get());
                throw alreadyEnded(jobId, existing.get().state().name(), existing.get().endedAtMs());
            }
            if (closed) {
                discard(job);
                throw Status.UNAVAILABLE.withDescription("this JobManager lost its leadership; submit again")
                        .asRuntimeException();
            }
            jobs.put(jobId, job);
            job.start();
            LOG.info("Job {} submitted: {} {}", jobId, request.getJobClass(), request.getParamsMap());
            return SubmitJobResponse.newBuilder().setJobId(jobId).setFingerprint(job.graph().fingerprint()).build();
        }, mainThread);
    }

    /** A job master that will not run: stop it and drop its event log. */
    private void discard(JobMaster job) {
        job.suspend();
        JobEventWriter writer = eventWriters.remove(job.jobId());
        if (writer != null) {
            writer.abandon();
        }
    }

    private void rejectKnown(String jobId) {
        if (pendingSubmissions.contains(jobId)) {
            throw Status.ALREADY_EXISTS.withDescription("job " + jobId + " is being submitted right now")
                    .asRuntimeException();
        }
        JobResultEntry result = results.get(jobId);
        if (result != null) {
            throw alreadyEnded(jobId, result.state().name(), result.endedAtMs());
        }
        JobMaster existing = jobs.get(jobId);
        if (existing != null) {
            if (existing.isTerminal()) {
                JobStatus status = existing.status();
                throw alreadyEnded(jobId, stateName(status.getState()), status.getEndedAtMs());
            }
            throw Status.ALREADY_EXISTS.withDescription("job " + jobId + " is already running; see 'duraflow status "
                    + jobId + "'").asRuntimeException();
        }
    }

    private static StatusRuntimeException alreadyEnded(String jobId, String state, long endedAtMs) {
        return Status.ALREADY_EXISTS.withDescription("job " + jobId + " already ended as " + state + " at "
                + Instant.ofEpochMilli(endedAtMs) + "; it is not run again (see 'duraflow result " + jobId + "')")
                .asRuntimeException();
    }

    /** The cluster's configuration with a job's overrides; INVALID_ARGUMENT if they are not valid. */
    private Configuration jobConfig(Map<String, String> overrides) {
        Map<String, String> merged = new HashMap<>(clusterConfig.toMap());
        merged.putAll(overrides);
        try {
            return Configuration.fromMap(merged);
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
    }

    private JobMaster createJobMaster(String jobId, String jobClass, Map<String, String> params,
            Map<String, String> jobConfigOverrides, int parallelism, long submittedAt) {
        Configuration jobConfig = jobConfig(jobConfigOverrides);
        JobGraph graph;
        try {
            graph = JobPlans.build(jobClass, params, parallelism);
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        } catch (RuntimeException | LinkageError e) {
            throw Status.INVALID_ARGUMENT.withDescription("job " + jobClass + " failed to build its plan: " + e)
                    .asRuntimeException();
        }
        JobMaster job = new JobMaster(jobId, jobClass, params, jobConfigOverrides, graph,
                settings(jobConfig, parallelism), sessionId, resourceManager, resourceManager, mainThread, clock,
                this::jobTerminated, submittedAt);
        if (JobRecoveryOptions.isEnabled(jobConfig)) {
            JobEventWriter writer = JobEventWriter.create(
                    services.jobDirectory().apply(jobId).resolve(JOB_EVENTS_DIRECTORY), jobConfig);
            eventWriters.put(jobId, writer);
            job.eventLog(new RecordingJobEventLog(writer, clock));
        }
        return job;
    }

    /** The job event log of a job, under its job directory. */
    public static final String JOB_EVENTS_DIRECTORY = "job-events";

    static JobSettings settings(Configuration config, int parallelism) {
        int configuredMax = config.get(ExecutionOptions.ADAPTIVE_MAX_PARALLELISM);
        boolean restarts = config.get(ExecutionOptions.RESTART_STRATEGY_TYPE) == RestartStrategyType.FIXED_DELAY;
        return new JobSettings(parallelism, config.get(ExecutionOptions.BATCH_MAX_KEY_GROUPS),
                config.get(ExecutionOptions.ADAPTIVE_MIN_PARALLELISM), configuredMax > 0 ? configuredMax : parallelism,
                config.get(ExecutionOptions.ADAPTIVE_AVG_BYTES_PER_TASK).bytes(),
                restarts ? config.get(ExecutionOptions.FIXED_DELAY_ATTEMPTS) : 0,
                config.get(ExecutionOptions.FIXED_DELAY_DELAY).toMillis())
                .withCollectMaxBytes(config.get(ClusterOptions.COLLECT_MAX_BYTES).bytes());
    }

    private void requireLeadership() {
        if (!services.stillLeads().test(sessionId)) {
            throw new CompletionException(Status.UNAVAILABLE.withDescription(
                    "this JobManager is no longer the leader").asRuntimeException());
        }
    }

    private static String stateName(JobState state) {
        return state.name().replace("JOB_", "");
    }

    // ------------------------------------------------------------------ the end of a job

    /** A job reached a terminal state: its result must be durable before anyone sees it. */
    private void jobTerminated(JobMaster job) {
        scheduleAll();
        JobResultEntry entry = JobResults.toEntry(job.status(), job.collected(), job.params());
        JobEventWriter writer = eventWriters.remove(job.jobId());
        CompletableFuture<Void> logClosed = writer == null ? CompletableFuture.completedFuture(null)
                : writer.closeAsync().exceptionally(e -> null);
        logClosed.thenRunAsync(() -> {
            Failpoints.hit("dispatcher.before-dirty-result");
            requireLeadership();
            try {
                services.results().createDirtyResult(entry);
            } catch (JobResultEntryExistsException e) {
                LOG.info("Job {} already has a result entry", entry.jobId());
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, services.io()).whenCompleteAsync((ignored, error) -> {
            if (closed) {
                return;
            }
            if (error != null) {
                LOG.error("Cannot write the result of job {} ({}); giving up leadership so that another JobManager"
                        + " decides", entry.jobId(), error.getMessage());
                services.giveUpLeadership().run();
                return;
            }
            results.put(entry.jobId(), entry);
            LOG.info("Job {} ended as {}; result stored", entry.jobId(), entry.state());
            runCleanup(entry.jobId(), 0);
        }, mainThread);
    }

    /** Deletes everything the job owns, retried per the cleanup strategy, then marks its result clean. */
    private void runCleanup(String jobId, int failedAttempts) {
        cleanupState.put(jobId, "running (attempt " + (failedAttempts + 1) + ")");
        for (String tmId : resourceManager.taskManagers()) {
            resourceManager.releasePartitions(tmId, jobId, List.of());
        }
        CompletableFuture.runAsync(() -> {
            Failpoints.hit("dispatcher.before-cleanup");
            try {
                requireLeadership();
                services.jobGraphs().remove(jobId);
                deleteTree(services.jobDirectory().apply(jobId));
                requireLeadership();
                services.results().markResultAsClean(jobId);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, services.io()).whenCompleteAsync((ignored, error) -> {
            if (closed) {
                return;
            }
            if (error == null) {
                cleanupState.put(jobId, "done");
                LOG.info("Job {} cleaned up", jobId);
                services.io().execute(() -> Failpoints.hit("dispatcher.after-clean"));
                return;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            OptionalLong delay = services.cleanupPolicy().delayBeforeAttempt(failedAttempts + 1);
            if (delay.isEmpty()) {
                cleanupState.put(jobId, "failed: " + cause.getMessage());
                LOG.error("Cleanup of job {} failed after {} attempts ({}); its result stays DIRTY and the next leader"
                        + " completes it", jobId, failedAttempts + 1, cause.getMessage());
                return;
            }
            LOG.warn("Cleanup of job {} failed ({}); retrying in {} ms", jobId, cause.getMessage(), delay.getAsLong());
            mainThread.schedule(() -> {
                if (!closed) {
                    runCleanup(jobId, failedAttempts + 1);
                }
            }, delay.getAsLong());
        }, mainThread);
    }

    private static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Deletes clean results older than job-result-store.clean-result-ttl (a no-op without a TTL). */
    public void expireCleanResults() {
        services.io().execute(() -> {
            try {
                if (services.stillLeads().test(sessionId)) {
                    int expired = services.results().expireCleanResults();
                    if (expired > 0) {
                        LOG.info("Deleted {} expired job results", expired);
                    }
                }
            } catch (IOException e) {
                LOG.warn("Expiring old job results failed: {}", e.getMessage());
            }
        });
    }

    /** The job's event log in readable form, read from storage. */
    public CompletableFuture<io.duraflow.rpc.proto.JobEvents> events(String jobId) {
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId + "'").asRuntimeException();
        }
        Path directory = services.jobDirectory().apply(jobId).resolve(JOB_EVENTS_DIRECTORY);
        return CompletableFuture.supplyAsync(() -> {
            if (!Files.isDirectory(directory)) {
                throw new CompletionException(Status.NOT_FOUND.withDescription("no event log for job '" + jobId
                        + "' (the job is unknown, job recovery is off, or its data was cleaned up)").asRuntimeException());
            }
            try {
                var read = io.duraflow.jobmanager.events.JobEventReader.readAll(directory);
                var events = io.duraflow.rpc.proto.JobEvents.newBuilder().addAllWarnings(read.warnings());
                for (var event : read.events()) {
                    events.addLines(io.duraflow.jobmanager.events.JobEventFormatter.format(event));
                }
                return events.build();
            } catch (IOException e) {
                throw new CompletionException(Status.DATA_LOSS.withDescription(e.getMessage()).asRuntimeException());
            }
        }, services.io());
    }

    /** The cleanup progress of a job ("running", "done", "failed: ..."), for tests and status. */
    public String cleanupState(String jobId) {
        return cleanupState.get(jobId);
    }

    // ------------------------------------------------------------------ events and queries

    private void scheduleAll() {
        for (JobMaster job : jobs.values()) {
            job.schedule();
        }
    }

    private void taskManagerLost(String tmId) {
        for (JobMaster job : new ArrayList<>(jobs.values())) {
            job.onTaskManagerLost(tmId);
        }
    }

    public void onTaskStateUpdate(TaskStateUpdate update) {
        if (!update.getJmSessionId().equals(sessionId)) {
            LOG.info("Ignoring a task update for session {}", update.getJmSessionId());
            return;
        }
        JobMaster job = jobs.get(update.getAttempt().getJobId());
        if (job != null) {
            job.onTaskStateUpdate(update);
        }
    }

    public void onOperatorEvent(OperatorEventFromTask event) {
        JobMaster job = jobs.get(event.getAttempt().getJobId());
        if (job != null) {
            job.onOperatorEvent(event.getAttempt(), event.getNodeId(), event.getEvent());
        }
    }

    /** A job's status: terminal only once its result is durable. */
    public CompletableFuture<JobStatus> status(String jobId) {
        return lookup(jobId).thenApply(found -> {
            if (found.job() != null) {
                if (found.job().isTerminal()) {
                    return visibleStatus(found.job());
                }
                JobStatus status = found.job().status();
                JobEventWriter writer = eventWriters.get(jobId);
                if (writer != null) {
                    status = status.toBuilder().setEventLog(JobEventLogStatus.newBuilder()
                            .setWrittenEvents(writer.writtenEvents()).setDroppedEvents(writer.droppedEvents())
                            .setStoppedCause(writer.disabledCause())).build();
                }
                return status;
            }
            return JobResults.toStatus(found.result());
        });
    }

    public CompletableFuture<JobResult> result(String jobId) {
        return lookup(jobId).thenApply(found -> {
            JobResultEntry entry = results.get(jobId);
            if (entry != null) {
                return JobResults.toResult(entry);
            }
            if (found.result() != null) {
                return JobResults.toResult(found.result());
            }
            return JobResult.newBuilder().setStatus(visibleStatus(found.job())).putAllParams(found.job().params())
                    .build();
        });
    }

    private record Found(JobMaster job, JobResultEntry result) {}

    /** A job's status as clients may see it: it shows as RUNNING until its result is durable. */
    private JobStatus visibleStatus(JobMaster job) {
        JobStatus status = job.status();
        return results.containsKey(job.jobId()) || !job.isTerminal() ? status
                : status.toBuilder().setState(JobState.JOB_RUNNING).setEndedAtMs(0).build();
    }

    /** In memory first; else the job result store (a job that ended under an earlier leader). */
    private CompletableFuture<Found> lookup(String jobId) {
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId + "'").asRuntimeException();
        }
        JobMaster job = jobs.get(jobId);
        if (job != null) {
            return CompletableFuture.completedFuture(new Found(job, null));
        }
        JobResultEntry known = results.get(jobId);
        if (known != null) {
            return CompletableFuture.completedFuture(new Found(null, known));
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return services.results().getResult(jobId);
            } catch (IOException e) {
                throw new CompletionException(Status.UNAVAILABLE.withDescription("cannot read the job result store: "
                        + e.getMessage()).asRuntimeException());
            }
        }, services.io()).thenApplyAsync(entry -> new Found(null, entry.orElseThrow(() -> Status.NOT_FOUND
                .withDescription("no job with id '" + jobId + "'; 'duraflow list' shows the jobs")
                .asRuntimeException())), mainThread);
    }

    public List<JobStatus> list() {
        List<JobStatus> statuses = new ArrayList<>();
        for (JobMaster job : jobs.values()) {
            statuses.add(visibleStatus(job));
        }
        for (JobResultEntry entry : results.values()) {
            if (!jobs.containsKey(entry.jobId())) {
                statuses.add(JobResults.toStatus(entry));
            }
        }
        return statuses;
    }

    public void cancel(String jobId) {
        JobMaster job = jobs.get(jobId);
        if (job == null) {
            JobResultEntry result = results.get(jobId);
            if (result != null) {
                throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " already ended as " + result.state())
                        .asRuntimeException();
            }
            throw Status.NOT_FOUND.withDescription("no running job with id '" + jobId + "'").asRuntimeException();
        }
        if (job.isTerminal()) {
            throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " already ended as "
                    + stateName(job.state().toProto())).asRuntimeException();
        }
        if (pendingRecoveries.remove(jobId) != null) {
            // It was waiting for the TaskManagers of its earlier run: it never resumes.
            releaseAllHeld(jobId);
        }
        job.cancel();
        if (!job.isTerminal()) {
            mainThread.schedule(job::forceCancelled, 10_000);
        }
    }

    public int runningJobs() {
        int running = 0;
        for (JobMaster job : jobs.values()) {
            if (!job.isTerminal()) {
                running++;
            }
        }
        return running;
    }

    /** Leadership is gone: stop every job without a result; the next leader takes over. */
    public void close() {
        closed = true;
        for (JobMaster job : jobs.values()) {
            job.suspend();
        }
        for (JobEventWriter writer : eventWriters.values()) {
            writer.abandon();
        }
        eventWriters.clear();
    }
}

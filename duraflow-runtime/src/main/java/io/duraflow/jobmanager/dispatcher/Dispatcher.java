package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.JobManagerMetrics;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;

import io.duraflow.checkpoint.CheckpointException;
import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.checkpoint.StandaloneCheckpointIdCounter;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.ClusterOptions;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.config.Configuration;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.checkpointing.SavepointRefusedException;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobEvents;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerSavepointRequest;
import io.duraflow.rpc.proto.TriggerSavepointResponse;
import io.duraflow.util.Futures;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts jobs, runs one {@link JobMaster} per job, and owns their durable life cycle for one
 * leadership session. It wires four parts that share a {@link JobRegistry}:
 * <pre>
 *   JobSubmissions     submit: no result for the id -> plan built (off the main thread) ->
 *                      job graph stored -> JobMaster runs
 *   JobCleanup         terminal: DIRTY result written (failure: give up leadership) -> result
 *                      visible, JobMaster evicted -> cleanup (PartitionRelease, JobResourceDeletion),
 *                      retried -> entry CLEAN once every step succeeded; one CleanupState per job
 *   StoredJobRecovery  leadership: DIRTY entries are cleaned up, stored job graphs without a
 *                      result run again (batch job recovery), unrecoverable ones end FAILED;
 *                      finishes that registering TaskManagers carried from earlier leaders
 *                      are logged before the recovery plans (EarlierFinishes decides which)
 *   JobQueries         status, result, list, events: memory first, then the result store
 *   TaskManagerEvents  registrations and reports of TaskManagers, routed to the jobs' masters;
 *                      attempts no job here runs are cancelled
 * </pre>
 * State lives on the main thread; store I/O runs on {@code io}, the jobs' own code on
 * {@code userCode}, and every durable write first checks with the election that this session
 * still leads. A JobMaster fails its own job when one of its handlers throws; an exception that
 * still escapes reaches the main thread's handler, which gives up leadership.
 */
public final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** The event log of a job, under its job directory. */
    public static final String JOB_EVENTS_DIRECTORY = JobDirectories.JOB_EVENTS_DIRECTORY;

    /** Results whose summaries (without collected records) a leader keeps in memory; older ones are read from the store. */
    static final int MAX_RESULT_SUMMARIES = 1_000;

    /**
     * What a dispatcher needs around it.
     *
     * @param io runs blocking store I/O
     * @param userCode runs the jobs' own code (plan building), bounded by a time limit
     * @param stillLeads asks the election, with a round trip, whether a session still leads
     * @param eventLogWriterThread where the jobs' event log writers write, or null for a thread of
     *     each writer's own (a deterministic simulation passes a mailbox it steps)
     */
    public record Services(JobResultStore results, JobGraphStore jobGraphs, JobDirectories jobDirectories,
            CleanupRetryPolicy cleanupPolicy, Executor io, Executor userCode, Runnable giveUpLeadership,
            Predicate<String> stillLeads, Function<String, CheckpointIdCounter> checkpointIdCounters,
            Mailbox eventLogWriterThread) {
        /** Each job event log writer on a thread of its own. */
        public Services(JobResultStore results, JobGraphStore jobGraphs, JobDirectories jobDirectories,
                CleanupRetryPolicy cleanupPolicy, Executor io, Executor userCode, Runnable giveUpLeadership,
                Predicate<String> stillLeads, Function<String, CheckpointIdCounter> checkpointIdCounters) {
            this(results, jobGraphs, jobDirectories, cleanupPolicy, io, userCode, giveUpLeadership, stillLeads,
                    checkpointIdCounters, null);
        }

        /** Without HA ZooKeeper: checkpoint ids are counted in memory, per job. */
        public Services(JobResultStore results, JobGraphStore jobGraphs, JobDirectories jobDirectories,
                CleanupRetryPolicy cleanupPolicy, Executor io, Executor userCode, Runnable giveUpLeadership,
                Predicate<String> stillLeads) {
            this(results, jobGraphs, jobDirectories, cleanupPolicy, io, userCode, giveUpLeadership, stillLeads,
                    jobId -> new StandaloneCheckpointIdCounter());
        }
    }

    private final String sessionId;
    private final Configuration clusterConfig;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final Services services;
    private final JobRegistry registry;
    private final JobCleanup cleanup;
    private final StoredJobRecovery recovery;
    private final JobSubmissions submissions;
    private final JobQueries queries;
    private final TaskManagerEvents taskManagerEvents;
    private boolean closed;
    private final JobJars jars;

    public Dispatcher(Configuration clusterConfig, String sessionId, ResourceManager resourceManager,
            Mailbox mainThread, LongSupplier clock, Services services) {
        this.clock = clock;
        this.sessionId = sessionId;
        this.clusterConfig = clusterConfig;
        this.mainThread = mainThread;
        this.services = services;
        this.registry = new JobRegistry(clusterConfig.get(ClusterOptions.COLLECT_MAX_BYTES).bytes(),
                MAX_RESULT_SUMMARIES);
        JobFactory factory = new JobFactory(clusterConfig, sessionId, resourceManager, mainThread, clock,
                services.jobDirectories(), services.userCode(), this::jobTerminated, services.io(),
                () -> services.stillLeads().test(sessionId), services.checkpointIdCounters(),
                services.eventLogWriterThread());
        this.jars = factory.jars();
        BooleanSupplier closed = () -> this.closed;
        this.cleanup = new JobCleanup(clusterConfig, services, resourceManager, mainThread, clock, this::requireLeadership, closed,
                this::resultStored);
        this.recovery = new StoredJobRecovery(services, registry, factory, cleanup, resourceManager, mainThread, clock,
                closed, clusterConfig.get(io.duraflow.config.TaskManagerOptions.LEADER_LOSS_TIMEOUT).toMillis() > 0);
        this.submissions = new JobSubmissions(services, registry, factory, mainThread, clock, this::requireLeadership,
                closed);
        this.queries = new JobQueries(services, registry, factory, mainThread, clock);
        this.taskManagerEvents = new TaskManagerEvents(sessionId, registry, recovery, resourceManager, mainThread,
                closed);
        resourceManager.addLossListener(taskManagerEvents::taskManagerLost);
        resourceManager.addSlotListener(this::scheduleAll);
        resourceManager.addRegistrationListener(recovery::taskManagerRegistered);
    }

    // ------------------------------------------------------------------ leadership

    /** Phase one of taking over, before this leader is published; see {@link StoredJobRecovery}. */
    public CompletableFuture<Void> recover() {
        return recover(clock.getAsLong());
    }

    /** As {@link #recover()}, by a leader elected at {@code electedAtMs} (shown in a recovered job's status). */
    public CompletableFuture<Void> recover(long electedAtMs) {
        mainThread.assertRunningInMailbox();
        return recovery.recover(electedAtMs);
    }

    /** Phase two, once this leader is published; see {@link StoredJobRecovery}. */
    public void startRecoveredJobs() {
        mainThread.assertRunningInMailbox();
        recovery.startRecoveredJobs();
    }

    /**
     * Leadership is gone: stop every job without a result; the next leader takes over.
     *
     * @return completes when the jobs' event logs are closed (a write under way ends first)
     */
    public CompletableFuture<Void> close() {
        mainThread.assertRunningInMailbox();
        closed = true;
        queries.close();
        for (JobMaster job : registry.jobs()) {
            job.suspend();
            services.io().execute(() -> jars.release(job.jobId()));
        }
        List<CompletableFuture<Void>> logsClosed = new ArrayList<>();
        for (JobEventWriter writer : registry.takeAllEventWriters()) {
            logsClosed.add(writer.abandon().exceptionally(error -> null));
        }
        return CompletableFuture.allOf(logsClosed.toArray(CompletableFuture[]::new));
    }

    private void requireLeadership() {
        if (!services.stillLeads().test(sessionId)) {
            throw new CompletionException(Status.UNAVAILABLE.withDescription(
                    "this JobManager is no longer the leader").asRuntimeException());
        }
    }

    // ------------------------------------------------------------------ requests

    public CompletableFuture<SubmitJobResponse> submit(SubmitJobRequest request) {
        mainThread.assertRunningInMailbox();
        return submissions.submit(request);
    }

    /** Submits a job from its jar, received into {@code upload} and checked against the request's hash. */
    public CompletableFuture<SubmitJobResponse> submit(SubmitJobRequest request, java.nio.file.Path upload) {
        mainThread.assertRunningInMailbox();
        return submissions.submit(request, upload);
    }

    /** The jars of jobs submitted from one (any thread). */
    public JobJars jars() {
        return jars;
    }

    public CompletableFuture<JobStatus> status(String jobId) {
        mainThread.assertRunningInMailbox();
        return queries.status(jobId);
    }

    /** Any thread: a running job's status without the main thread, or null (then ask {@link #status}). */
    public JobStatus publishedStatus(String jobId) {
        return queries.publishedStatus(jobId);
    }

    public CompletableFuture<JobResult> result(String jobId) {
        mainThread.assertRunningInMailbox();
        return queries.result(jobId);
    }

    public List<JobStatus> list() {
        mainThread.assertRunningInMailbox();
        return queries.list();
    }

    public CompletableFuture<JobEvents> events(String jobId) {
        return queries.events(jobId);
    }

    public CompletableFuture<io.duraflow.rpc.proto.JobCheckpoints> checkpoints(String jobId) {
        mainThread.assertRunningInMailbox();
        return queries.checkpoints(jobId);
    }

    /** The TaskManagers with the finished partitions of running jobs on each (see {@link JobQueries#withPartitions}). */
    public List<io.duraflow.rpc.proto.TaskManagerInfo> withPartitions(
            List<io.duraflow.rpc.proto.TaskManagerInfo> taskManagers) {
        mainThread.assertRunningInMailbox();
        return queries.withPartitions(taskManagers);
    }

    public int runningJobs() {
        mainThread.assertRunningInMailbox();
        return queries.runningJobs();
    }

    /**
     * Where the end of a job stands: its cleanup while one runs or gave up on this leader, else
     * done for a job whose result this leader knows; null for a job it knows no result of.
     */
    public CleanupState cleanupState(String jobId) {
        CleanupState inProgress = cleanup.state(jobId);
        return inProgress != null ? inProgress : registry.result(jobId).isPresent() ? new CleanupState.Done() : null;
    }

    public void cancel(String jobId) {
        mainThread.assertRunningInMailbox();
        JobMaster job = runningJob(jobId);
        recovery.cancelPending(jobId);
        job.cancel();
        if (!job.isTerminal()) {
            mainThread.schedule(job::forceCancelled, 10_000);
        }
    }

    /**
     * Takes a savepoint of a running streaming job, then cancels it if asked to (see {@link
     * JobMaster#triggerSavepoint}). Completes once the savepoint completed; fails with NOT_FOUND for
     * an unknown job, FAILED_PRECONDITION for one that ended, cannot take a savepoint now, or whose
     * savepoint failed (the message says why, and that the job keeps running), INVALID_ARGUMENT for
     * a missing or bad directory.
     */
    public CompletableFuture<TriggerSavepointResponse> triggerSavepoint(TriggerSavepointRequest request) {
        mainThread.assertRunningInMailbox();
        String jobId = request.getJobId();
        JobMaster job = runningJob(jobId);
        FsPath target = savepointTarget(request.getTargetDirectory());
        boolean cancel = request.getCancelJob();
        return job.triggerSavepoint(target, cancel).handle((savepoint, error) -> {
            if (error == null) {
                if (cancel && !job.isTerminal()) {
                    mainThread.schedule(job::forceCancelled, 10_000);
                }
                return TriggerSavepointResponse.newBuilder().setCheckpointId(savepoint.checkpointId())
                        .setPath(savepoint.directory().toString()).setStateSizeBytes(savepoint.stateSize()).build();
            }
            Throwable cause = Futures.unwrap(error);
            String keeps = cancel ? "; job " + jobId + " was not cancelled and keeps running" : "";
            if (cause instanceof SavepointRefusedException refused) {
                throw Status.FAILED_PRECONDITION.withDescription(refused.getMessage()).asRuntimeException();
            }
            if (cause instanceof CheckpointException failed) {
                throw Status.FAILED_PRECONDITION.withDescription("the savepoint of job " + jobId + " failed: "
                        + failed.failure().describe().replaceFirst("^checkpoint ", "savepoint ") + keeps)
                        .asRuntimeException();
            }
            throw Status.INTERNAL.withDescription("the savepoint of job " + jobId + " failed: " + describe(cause)
                    + keeps).asRuntimeException();
        });
    }

    /** Where a savepoint goes: the request's directory, else the cluster's execution.checkpointing.savepoint-dir. */
    private FsPath savepointTarget(String requested) {
        String target = requested.isBlank() ? clusterConfig.get(CheckpointingOptions.SAVEPOINT_DIR) : requested;
        if (target == null) {
            throw Status.INVALID_ARGUMENT.withDescription("no savepoint directory: give one (duraflow savepoint JOB_ID"
                    + " DIR) or set " + CheckpointingOptions.SAVEPOINT_DIR.key()).asRuntimeException();
        }
        try {
            FsPath path = FsPath.parse(target);
            FileSystems.get(path);
            return path;
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription("savepoint directory '" + target + "': " + e.getMessage())
                    .asRuntimeException();
        }
    }

    /** The JobMaster of a job that has not ended: NOT_FOUND or FAILED_PRECONDITION otherwise. */
    private JobMaster runningJob(String jobId) {
        JobQueries.requireValid(jobId);
        JobMaster job = registry.job(jobId);
        if (job == null) {
            var result = registry.result(jobId);
            if (result.isPresent()) {
                throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " already ended as "
                        + result.get().state()).asRuntimeException();
            }
            throw Status.NOT_FOUND.withDescription("no running job with id '" + jobId + "'").asRuntimeException();
        }
        if (job.isTerminal()) {
            throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " already ended as "
                    + stateName(job.state().toProto())).asRuntimeException();
        }
        return job;
    }

    /** Deletes clean results older than job-result-store.clean-result-ttl; memory forgets them in the same step. */
    public void expireCleanResults() {
        CompletableFuture.supplyAsync(() -> {
            try {
                return services.stillLeads().test(sessionId) ? services.results().expireCleanResults()
                        : List.<String>of();
            } catch (IOException e) {
                LOG.warn("Expiring old job results failed: {}", describe(e));
                return List.<String>of();
            }
        }, services.io()).thenAcceptAsync(expired -> {
            expired.forEach(registry::forget);
            if (!expired.isEmpty()) {
                LOG.info("Forgot {} expired job results: {}", expired.size(), expired);
            }
        }, mainThread);
    }

    // ------------------------------------------------------------------ events from TaskManagers

    /** A TaskManager registers; see {@link TaskManagerEvents#registerTaskManager}. */
    public CompletableFuture<Void> registerTaskManager(RegisterTaskManagerRequest request) {
        return taskManagerEvents.registerTaskManager(request);
    }

    /** The attempts a TaskManager runs; strays are cancelled (see {@link TaskManagerEvents#onTasksRunning}). */
    public void onTasksRunning(String tmId, List<AttemptId> attempts) {
        taskManagerEvents.onTasksRunning(tmId, attempts);
    }

    public void onTaskStateUpdate(TaskStateUpdate update) {
        taskManagerEvents.onTaskStateUpdate(update);
    }

    /** A running task's counters from its TaskManager's heartbeat (of this session). */
    public void onTaskMetrics(AttemptId attempt, TaskMetricsSample sample) {
        taskManagerEvents.onTaskMetrics(attempt, sample);
    }

    public void onOperatorEvent(OperatorEventFromTask event) {
        taskManagerEvents.onOperatorEvent(event);
    }

    /** A task's part of a checkpoint is durable; INVALID_ARGUMENT if its state handles cannot be decoded. */
    public void acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
        taskManagerEvents.acknowledgeCheckpoint(request);
    }

    /** A task declined a checkpoint; INVALID_ARGUMENT if the reason is unknown. */
    public void declineCheckpoint(DeclineCheckpointRequest request) {
        taskManagerEvents.declineCheckpoint(request);
    }

    /** A streaming task ended its input and waits for its final checkpoint. */
    public void onInputEnded(TaskInputEnded report) {
        taskManagerEvents.onInputEnded(report);
    }

    private void scheduleAll() {
        for (JobMaster job : registry.jobs()) {
            job.schedule();
        }
    }

    // ------------------------------------------------------------------ the end of a job

    /** A job reached a terminal state: its result must be durable before anyone sees it. */
    private void jobTerminated(JobMaster job) {
        scheduleAll();
        JobResultEntry entry = JobResults.toEntry(job.status(), job.collected(), job.params());
        JobEventWriter writer = registry.takeEventWriter(job.jobId());
        CompletableFuture<Void> logClosed = writer == null ? CompletableFuture.completedFuture(null)
                : writer.closeAsync();
        cleanup.storeResultAndCleanUp(entry, logClosed);
    }

    /** The result is durable: from now on the job is known by its result, and its JobMaster is dropped. */
    private void resultStored(JobResultEntry entry) {
        JobMaster job = registry.job(entry.jobId());
        JobStatus last = job == null ? null : job.status();
        // Keep the job master's detailed status only if the stored result is this run's.
        boolean thisRun = last != null && last.getEndedAtMs() == entry.endedAtMs() && job.isTerminal()
                && JobResults.outcome(last.getState()) == entry.state();
        registry.resultStored(entry, thisRun ? last : null);
        queries.forget(entry.jobId());
        // The job's code is not needed any more here: its class loader closes (the jar stays stored until cleanup).
        services.io().execute(() -> jars.release(entry.jobId()));
    }

    // ------------------------------------------------------------------ metrics

    /** What this leadership remembers of its jobs; main thread only (see {@link JobManagerMetrics}). */
    public JobRegistry registry() {
        return registry;
    }

    /** Whether this leader took the job over from an earlier one. */
    public boolean recovered(String jobId) {
        return recovery.recovered(jobId);
    }

    // ------------------------------------------------------------------ helpers

    static String stateName(JobState state) {
        return state.name().replace("JOB_", "");
    }

    /** A failure of a future's stage as one line for a log or a user ({@link Rpc#message}). */
    public static String describe(Throwable error) {
        return Rpc.message(Futures.unwrap(error));
    }
}

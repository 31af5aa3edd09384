package io.duraflow.jobmanager;

import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.RestartStrategyType;
import io.duraflow.jobmanager.scheduler.JobMaster;
import io.duraflow.jobmanager.scheduler.JobSettings;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts jobs, runs one {@link JobMaster} per job, and answers status and result queries.
 * Main thread only.
 */
public final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final Configuration clusterConfig;
    private final String sessionId;
    private final ResourceManager resourceManager;
    private final Scheduler mainThread;
    private final LongSupplier clock;
    private final Map<String, JobMaster> jobs = new LinkedHashMap<>();
    private final Map<String, Long> cancelDeadlines = new HashMap<>();

    public Dispatcher(Configuration clusterConfig, String sessionId, ResourceManager resourceManager,
            Scheduler mainThread, LongSupplier clock) {
        this.clusterConfig = clusterConfig;
        this.sessionId = sessionId;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        resourceManager.addLossListener(this::taskManagerLost);
        resourceManager.addSlotListener(this::scheduleAll);
    }

    public SubmitJobResponse submit(SubmitJobRequest request) {
        String jobId = request.getJobId().isEmpty() ? UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                : request.getJobId();
        if (!JOB_ID.matcher(jobId).matches()) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId
                    + "': use 1-64 letters, digits, '.', '_' or '-'").asRuntimeException();
        }
        JobMaster existing = jobs.get(jobId);
        if (existing != null) {
            JobStatus status = existing.status();
            String what = existing.isTerminal()
                    ? "already ended as " + stateName(status.getState()) + " at "
                            + Instant.ofEpochMilli(status.getEndedAtMs()) + "; see 'duraflow result " + jobId + "'"
                    : "is already running; see 'duraflow status " + jobId + "'";
            throw Status.ALREADY_EXISTS.withDescription("job " + jobId + " " + what).asRuntimeException();
        }
        Configuration jobConfig;
        try {
            Map<String, String> merged = new HashMap<>(clusterConfig.toMap());
            merged.putAll(request.getConfigMap());
            jobConfig = Configuration.fromMap(merged);
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
        int parallelism = request.getParallelism() > 0 ? request.getParallelism()
                : jobConfig.get(ExecutionOptions.PARALLELISM_DEFAULT);
        JobGraph graph;
        try {
            graph = JobPlans.build(request.getJobClass(), request.getParamsMap(), parallelism);
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        } catch (RuntimeException | LinkageError e) {
            throw Status.INVALID_ARGUMENT.withDescription("job " + request.getJobClass() + " failed to build its plan: "
                    + e).asRuntimeException();
        }
        JobMaster job = new JobMaster(jobId, request.getJobClass(), request.getParamsMap(), request.getConfigMap(),
                graph, settings(jobConfig, parallelism), sessionId, resourceManager, resourceManager, mainThread, clock,
                this::jobTerminated);
        try {
            job.start();
        } catch (Exception e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            throw Status.INVALID_ARGUMENT.withDescription("job " + jobId + " cannot start: " + message)
                    .asRuntimeException();
        }
        jobs.put(jobId, job);
        LOG.info("Job {} submitted: {} {}", jobId, request.getJobClass(), request.getParamsMap());
        return SubmitJobResponse.newBuilder().setJobId(jobId).setFingerprint(graph.fingerprint()).build();
    }

    static JobSettings settings(Configuration config, int parallelism) {
        int configuredMax = config.get(ExecutionOptions.ADAPTIVE_MAX_PARALLELISM);
        boolean restarts = config.get(ExecutionOptions.RESTART_STRATEGY_TYPE) == RestartStrategyType.FIXED_DELAY;
        return new JobSettings(parallelism, config.get(ExecutionOptions.BATCH_MAX_KEY_GROUPS),
                config.get(ExecutionOptions.ADAPTIVE_MIN_PARALLELISM), configuredMax > 0 ? configuredMax : parallelism,
                config.get(ExecutionOptions.ADAPTIVE_AVG_BYTES_PER_TASK).bytes(),
                restarts ? config.get(ExecutionOptions.FIXED_DELAY_ATTEMPTS) : 0,
                config.get(ExecutionOptions.FIXED_DELAY_DELAY).toMillis());
    }

    private static String stateName(JobState state) {
        return state.name().replace("JOB_", "");
    }

    private void jobTerminated(JobMaster job) {
        cancelDeadlines.remove(job.jobId());
        scheduleAll();
    }

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

    private JobMaster job(String jobId) {
        JobMaster job = jobs.get(jobId);
        if (job == null) {
            throw Status.NOT_FOUND.withDescription("no job with id '" + jobId + "'; 'duraflow list' shows the jobs")
                    .asRuntimeException();
        }
        return job;
    }

    public JobStatus status(String jobId) {
        return job(jobId).status();
    }

    public List<JobStatus> list() {
        List<JobStatus> statuses = new ArrayList<>();
        for (JobMaster job : jobs.values()) {
            statuses.add(job.status());
        }
        return statuses;
    }

    public void cancel(String jobId) {
        JobMaster job = job(jobId);
        if (job.isTerminal()) {
            throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " already ended as "
                    + stateName(job.state())).asRuntimeException();
        }
        job.cancel();
        if (!job.isTerminal()) {
            mainThread.schedule(job::forceCancelled, 10_000);
        }
    }

    public JobResult result(String jobId) {
        JobMaster job = job(jobId);
        return JobResult.newBuilder().setStatus(job.status()).addAllCollected(job.isTerminal() ? job.collected()
                : List.of()).putAllParams(job.params()).build();
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
}

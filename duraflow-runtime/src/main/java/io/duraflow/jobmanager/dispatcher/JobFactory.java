package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.jobmaster.execution.RestartStrategy;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.util.SequentialExecutor;

import io.duraflow.checkpoint.CheckpointCoordinatorConfig;
import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.checkpoint.CheckpointServices;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.InitialRestore;
import io.duraflow.checkpoint.SavepointPaths;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobstore.RestoreSettings;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.jobmaster.RecordingJobEventLog;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.failover.RestartBackoff;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.util.Futures;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Turns a submitted job into a {@link JobMaster}: merges its configuration, builds its plan (the
 * job's own code, so never on the main thread and never longer than
 * {@link JobManagerOptions#USER_CODE_TIMEOUT}), and gives it an event log writer when batch job
 * recovery is on (batch jobs only), or a checkpoint coordinator when checkpointing is on (streaming
 * jobs only): checkpoints under {@code execution.checkpointing.dir}, the completed-checkpoint store
 * in the job's HA directory (written only while this session leads), ids from ZooKeeper with
 * ZooKeeper HA, I/O one task at a time on the JobManager's I/O threads.
 */
final class JobFactory {
    private final Configuration clusterConfig;
    private final String sessionId;
    private final ResourceManager resourceManager;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final JobDirectories jobDirectories;
    private final Executor userCode;
    private final JobMaster.TerminationListener terminated;
    private final Executor io;
    private final BooleanSupplier stillLeads;
    private final Function<String, CheckpointIdCounter> checkpointIdCounters;
    /** Where job event log writers write; null: each on a thread of its own (see {@link Dispatcher.Services}). */
    private final Mailbox eventLogWriterThread;
    /** The jars of jobs submitted from one, and their class loaders. */
    private final JobJars jars;

    JobFactory(Configuration clusterConfig, String sessionId, ResourceManager resourceManager, Mailbox mainThread,
            LongSupplier clock, JobDirectories jobDirectories, Executor userCode,
            JobMaster.TerminationListener terminated, Executor io, BooleanSupplier stillLeads,
            Function<String, CheckpointIdCounter> checkpointIdCounters) {
        this(clusterConfig, sessionId, resourceManager, mainThread, clock, jobDirectories, userCode, terminated, io,
                stillLeads, checkpointIdCounters, null);
    }

    JobFactory(Configuration clusterConfig, String sessionId, ResourceManager resourceManager, Mailbox mainThread,
            LongSupplier clock, JobDirectories jobDirectories, Executor userCode,
            JobMaster.TerminationListener terminated, Executor io, BooleanSupplier stillLeads,
            Function<String, CheckpointIdCounter> checkpointIdCounters, Mailbox eventLogWriterThread) {
        this.eventLogWriterThread = eventLogWriterThread;
        this.io = io;
        this.stillLeads = stillLeads;
        this.checkpointIdCounters = checkpointIdCounters;
        this.clusterConfig = clusterConfig;
        this.sessionId = sessionId;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.jobDirectories = jobDirectories;
        this.userCode = userCode;
        this.terminated = terminated;
        this.jars = new JobJars(jobDirectories, java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                "duraflow-jobmanager-jars-" + ProcessHandle.current().pid() + "-" + sessionId));
    }

    /** The jars of jobs submitted from one, and their class loaders. */
    JobJars jars() {
        return jars;
    }

    /**
     * A job's graph and the configuration it runs with.
     *
     * @param restoreMetadata the {@code _metadata} the job restores while it has no checkpoint of its
     *     own ({@link SubmittedJob#restore()}), or null
     */
    record Built(SubmittedJob job, Configuration config, JobGraph graph, int parallelism, FsPath restoreMetadata) {}

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

    /**
     * Builds the job's plan on the user-code executor; completes (on no particular thread) with
     * the plan or an INVALID_ARGUMENT / DEADLINE_EXCEEDED {@link StatusRuntimeException} whose
     * description says what went wrong.
     */
    CompletableFuture<Built> build(SubmittedJob job) {
        return build(job, false);
    }

    /**
     * As {@link #build(SubmittedJob)}, for a job being submitted: a job that restores a savepoint
     * or checkpoint is checked against it too (see {@link #checkRestore}), so a bad path, a corrupt
     * file or state the job cannot take fails the submission with INVALID_ARGUMENT. A job a new
     * leader recovers is not checked again: once it completed a checkpoint of its own it no longer
     * needs what it was submitted with (which the user may have deleted, or a claim deleted).
     */
    CompletableFuture<Built> buildForSubmission(SubmittedJob job) {
        return build(job, true);
    }

    private CompletableFuture<Built> build(SubmittedJob job, boolean submission) {
        Configuration config;
        try {
            config = jobConfig(job.config());
        } catch (StatusRuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        int parallelism = job.parallelism() > 0 ? job.parallelism() : config.get(ExecutionOptions.PARALLELISM_DEFAULT);
        long timeoutMs = config.get(JobManagerOptions.USER_CODE_TIMEOUT).toMillis();
        return CompletableFuture.supplyAsync(() -> {
                    JobGraph graph = buildPlan(job, parallelism, config.get(ExecutionOptions.RUNTIME_MODE));
                    checkCheckpointing(job.jobId(), graph, config);
                    FsPath restoreMetadata = job.restore() == null ? null
                            : submission ? checkRestore(job, graph, config) : restoreMetadata(job);
                    return new Built(job, config, graph, parallelism, restoreMetadata);
                }, userCode)
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .exceptionally(error -> {
                    Throwable cause = Futures.unwrap(error);
                    if (cause instanceof StatusRuntimeException status) {
                        throw status;
                    }
                    if (cause instanceof TimeoutException) {
                        throw Status.DEADLINE_EXCEEDED.withDescription("job " + job.jobClass() + " did not build its"
                                + " plan within " + timeoutMs + " ms (" + JobManagerOptions.USER_CODE_TIMEOUT.key()
                                + "); does its build() block?").asRuntimeException();
                    }
                    throw Status.INTERNAL.withDescription("building the plan of " + job.jobClass() + " failed: "
                            + cause).asRuntimeException();
                });
    }

    /** A streaming job with checkpointing on needs a checkpoint directory it can use: INVALID_ARGUMENT otherwise. */
    private static void checkCheckpointing(String jobId, JobGraph graph, Configuration config) {
        if (graph.mode() != RuntimeMode.STREAMING || !CheckpointingOptions.isEnabled(config)) {
            return;
        }
        try {
            CheckpointServices.directories(config, jobId);
            CheckpointCoordinatorConfig.fromConfiguration(config);
        } catch (IllegalArgumentException e) {
            // IllegalConfigurationException included: both name the option and what to set.
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
    }

    /**
     * A submitted job that restores a savepoint or checkpoint: it must be a streaming job with
     * checkpointing on, and the path must name a readable {@code _metadata} ({@link SavepointPaths})
     * whose state the job can take ({@link CheckpointRestore#check}). INVALID_ARGUMENT otherwise, with
     * the one-line reason (naming the file, or the operator uids).
     *
     * @return the {@code _metadata} file
     */
    private static FsPath checkRestore(SubmittedJob job, JobGraph graph, Configuration config) {
        if (graph.mode() != RuntimeMode.STREAMING || !CheckpointingOptions.isEnabled(config)) {
            throw Status.INVALID_ARGUMENT.withDescription("job " + job.jobId() + " cannot restore "
                    + job.restore().path() + ": only a streaming job with checkpointing on restores a savepoint; set"
                    + " execution.runtime-mode=streaming, " + CheckpointingOptions.INTERVAL.key() + " and "
                    + CheckpointingOptions.DIR.key()).asRuntimeException();
        }
        try {
            CompletedCheckpoint checkpoint = SavepointPaths.read(job.restore().path());
            CheckpointRestore.check(checkpoint, graph, config.get(CheckpointingOptions.MAX_PARALLELISM),
                    job.restore().allowNonRestoredState());
            return checkpoint.metadataFile();
        } catch (SavepointPaths.InvalidRestorePathException | IllegalStateException | IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
    }

    /** A recovered job's restore file, not read: it matters only if the job has no checkpoint of its own yet. */
    private static FsPath restoreMetadata(SubmittedJob job) {
        try {
            return SavepointPaths.metadataFile(job.restore().path());
        } catch (SavepointPaths.InvalidRestorePathException e) {
            // Without a checkpoint of its own, the job's restore fails with this reason; with one, it is unused.
            try {
                return FsPath.parse(job.restore().path()).resolve(CheckpointDirectories.METADATA_FILE);
            } catch (IllegalArgumentException unparsable) {
                throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
            }
        }
    }

    private JobGraph buildPlan(SubmittedJob job, int parallelism, RuntimeMode mode) {
        try {
            if (job.jar() == null) {
                return JobPlans.build(job.jobClass(), job.params(), parallelism, mode);
            }
            return JobPlans.build(jars.loader(job.jobId(), job.jar()), job.jobClass(), job.params(), parallelism, mode);
        } catch (java.io.UncheckedIOException e) {
            throw Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException();
        } catch (JobPlans.UnknownJobException e) {
            throw Status.INVALID_ARGUMENT.withDescription(job.jar() == null ? e.getMessage()
                    : e.getMessage() + " (jar " + job.jar().fileName() + ")").asRuntimeException();
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        } catch (RuntimeException | LinkageError e) {
            throw Status.INVALID_ARGUMENT.withDescription("job " + job.jobClass() + (job.jar() == null ? ""
                    : " (jar " + job.jar().fileName() + ")") + " failed to build its plan: " + e).asRuntimeException();
        }
    }

    /**
     * Starts a created job's sources (their enumerators list the input: the job's own code) on
     * the user-code executor within {@link JobManagerOptions#USER_CODE_TIMEOUT}; completes on the
     * main thread (see {@link JobMaster#prepareAsync}).
     */
    CompletableFuture<Void> prepare(JobMaster job, Built built) {
        return job.prepareAsync(userCode, mainThread, built.config().get(JobManagerOptions.USER_CODE_TIMEOUT));
    }

    /** A job master for a built job, with its event log writer (null when recovery is off). Main thread. */
    Created create(Built built) {
        SubmittedJob job = built.job();
        int parallelism = built.parallelism();
        // Tasks get the job's effective configuration (the cluster's with the job's overrides), so a
        // TaskManager builds the plan in the same runtime mode and uses the same state options.
        JobMaster master = new JobMaster(job.jobId(), job.jobClass(), jarOf(job), job.params(),
                built.config().toMap(), built.graph(), settings(built.config(), parallelism), sessionId,
                resourceManager, resourceManager, mainThread, clock, terminated, job.submittedAtMs());
        master.keepTasksForNextLeader(clusterConfig.get(TaskManagerOptions.LEADER_LOSS_TIMEOUT)
                .toMillis() > 0);
        JobEventWriter writer = null;
        boolean streaming = built.graph().mode() == RuntimeMode.STREAMING;
        if (streaming && CheckpointingOptions.isEnabled(built.config())) {
            JobMaster.CheckpointSetup setup = checkpointSetup(job.jobId(), built.config());
            if (built.restoreMetadata() != null) {
                setup = new JobMaster.CheckpointSetup(setup.config(), setup.directories(), setup.fileSystem(),
                        setup.io(), setup.idCounter(), setup.store(), new InitialRestore(built.restoreMetadata(),
                                job.restore().mode() == RestoreSettings.Mode.CLAIM),
                        job.restore().allowNonRestoredState());
            }
            master.enableCheckpoints(setup);
        }
        // Streaming jobs restart from checkpoints, never from the batch event log.
        if (!streaming && JobRecoveryOptions.isEnabled(built.config())) {
            writer = eventLogWriterThread == null
                    ? JobEventWriter.create(jobDirectories.fileSystem(), eventLogDirectory(job.jobId()), built.config())
                    : JobEventWriter.create(jobDirectories.fileSystem(), eventLogDirectory(job.jobId()), built.config(),
                            eventLogWriterThread);
            master.eventLog(new RecordingJobEventLog(writer, clock));
        }
        return new Created(master, writer);
    }

    /** What the job's checkpoint coordinator works with; the configuration was checked in {@link #build}. */
    JobMaster.CheckpointSetup checkpointSetup(String jobId, Configuration config) {
        CheckpointDirectories directories = CheckpointServices.directories(config, jobId);
        FileSystem fileSystem = CheckpointServices.fileSystem(directories);
        return new JobMaster.CheckpointSetup(CheckpointCoordinatorConfig.fromConfiguration(config), directories,
                fileSystem, new SequentialExecutor(io), checkpointIdCounters.apply(jobId),
                CheckpointServices.completedCheckpointStore(config, jobDirectories.fileSystem(),
                        jobDirectories.jobDirectory(jobId), fileSystem, jobId, stillLeads));
    }

    /** The jar a job's tasks load its classes from, as deployments carry it; null for a job on the class path. */
    static JobArtifact jarOf(SubmittedJob job) {
        return job.jar() == null ? null : JobArtifact.newBuilder().setSha256(job.jar().sha256())
                .setFileName(job.jar().fileName()).setSize(job.jar().size()).build();
    }

    /** A new job master and its event log writer, or null. */
    record Created(JobMaster job, JobEventWriter writer) {}

    FsPath eventLogDirectory(String jobId) {
        return jobDirectories.eventLogDirectory(jobId);
    }

    /** Where the jobs' directories are. */
    JobDirectories jobDirectories() {
        return jobDirectories;
    }

    static JobSettings settings(Configuration config, int parallelism) {
        int configuredMax = config.get(ExecutionOptions.ADAPTIVE_MAX_PARALLELISM);
        return new JobSettings(parallelism, config.get(ExecutionOptions.BATCH_MAX_KEY_GROUPS),
                config.get(ExecutionOptions.ADAPTIVE_MIN_PARALLELISM), configuredMax > 0 ? configuredMax : parallelism,
                config.get(ExecutionOptions.ADAPTIVE_AVG_BYTES_PER_TASK).bytes(),
                RestartStrategy.fromConfiguration(config),
                config.get(ClusterOptions.COLLECT_MAX_BYTES).bytes());
    }
}

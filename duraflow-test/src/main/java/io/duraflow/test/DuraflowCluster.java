package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.RuntimeMode;
import io.duraflow.embedded.InProcessCluster;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.RestoreSettingsData;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TriggerSavepointRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Duraflow cluster inside the test's JVM: a JobManager and TaskManagers that talk gRPC on
 * loopback as separate processes do, running the jobs on the test's class path. As a JUnit 5
 * extension it starts before the test class's first test and stops after its last:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(2).build();
 *
 * @Test
 * void countsWords() {
 *     JobOutcome outcome = cluster.run(WordCount.class, Map.of("words", "1000"));
 *     assertThat(outcome.finished()).isTrue();
 *     List<Tuple2<String, Long>> counts = outcome.collected("counts");
 * }
 * }</pre>
 *
 * Metrics: with {@code config("metrics.prometheus.port", "0")} each TaskManager serves its tasks'
 * metrics, those your code registers included, at {@link #taskManagerMetricsUrl}.
 *
 * <p>Failures for users' own tests: {@link #stopTaskManager} stops a TaskManager as a crash would
 * (its tasks end, its connection drops), {@link #restartJobManager} replaces the JobManager by a
 * new one on the same storage, which recovers the running jobs. Its storage is a temporary
 * directory, deleted when it stops.
 */
public final class DuraflowCluster implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

    private final int initialTaskManagers;
    private final Map<String, String> settings;
    private InProcessCluster cluster;
    private ManagedChannel channel;
    private DispatcherGatewayGrpc.DispatcherGatewayBlockingStub gateway;

    private DuraflowCluster(int taskManagers, Map<String, String> settings) {
        this.initialTaskManagers = taskManagers;
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How the cluster is made: TaskManagers, their slots, any other configuration option. */
    public static final class Builder {
        private int taskManagers = 1;
        private final Map<String, String> settings = new LinkedHashMap<>(Map.of("taskmanager.slots", "4"));

        private Builder() {}

        /** TaskManagers to start (default 1). */
        public Builder taskManagers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a cluster needs at least 1 TaskManager, got " + count);
            }
            this.taskManagers = count;
            return this;
        }

        /** Slots of each TaskManager (default 4). */
        public Builder slots(int slots) {
            return config("taskmanager.slots", Integer.toString(slots));
        }

        /** Any configuration option, as in {@code duraflow.yaml}; an unknown key fails {@link #build}. */
        public Builder config(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public DuraflowCluster build() {
            Configuration.fromMap(settings);  // an unknown key or bad value fails here, naming it
            return new DuraflowCluster(taskManagers, Map.copyOf(settings));
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts the JobManager and the TaskManagers; the extension calls it before the first test. */
    public void start() throws Exception {
        cluster = InProcessCluster.start(Configuration.fromMap(settings), initialTaskManagers);
        channel = Rpc.channel(address());
        gateway = DispatcherGatewayGrpc.newBlockingStub(channel);
    }

    /** host:port of the JobManager, for a client of your own. */
    public String address() {
        return cluster.address();
    }

    /**
     * Where a running TaskManager serves its Prometheus metrics, the metrics your sources, sinks and
     * functions register included, as of each task's last sample (taken with every heartbeat).
     *
     * @throws IllegalStateException unless the cluster was built with {@code config("metrics.prometheus.port", "0")}
     */
    public String taskManagerMetricsUrl(int index) {
        return cluster.taskManagerMetricsUrl(index);
    }

    /** Starts one more TaskManager; returns its index. */
    public int startTaskManager() throws Exception {
        return cluster.startTaskManager();
    }

    /**
     * Stops a TaskManager as a crash would: its tasks end and its connection drops, and the
     * JobManager runs their work again elsewhere (a streaming job from its latest checkpoint).
     */
    public void stopTaskManager(int index) {
        cluster.stopTaskManager(index);
    }

    /**
     * Stops the JobManager and starts a new one on the same storage and address: it recovers the
     * jobs that were running (a batch job keeps its finished work, a streaming job its latest
     * checkpoint), and the TaskManagers register with it.
     */
    public void restartJobManager() throws Exception {
        cluster.restartJobManager();
    }

    /** Runs a job on the class path with its parameters at the default parallelism, and waits for its end. */
    public JobOutcome run(Class<? extends DuraflowJob> job, Map<String, String> params) {
        return await(submit(job, params, 0, Map.of()), DEFAULT_TIMEOUT);
    }

    /** Runs a job with its parameters, parallelism and configuration of its own, and waits for its end. */
    public JobOutcome run(Class<? extends DuraflowJob> job, Map<String, String> params, int parallelism,
            Map<String, String> jobConfig) {
        return await(submit(job, params, parallelism, jobConfig), DEFAULT_TIMEOUT);
    }

    /** Submits a job and returns its id at once (see {@link #await}). */
    public String submit(Class<? extends DuraflowJob> job, Map<String, String> params, int parallelism,
            Map<String, String> jobConfig) {
        String jobId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(job.getName())
                .putAllParams(params).putAllConfig(jobConfig).setParallelism(parallelism).build();
        call(stub -> stub.submitJob(request), DEFAULT_TIMEOUT);
        return jobId;
    }

    /**
     * Submits a job that starts from a savepoint or a retained checkpoint ({@code path}), at any
     * parallelism, and returns its id at once. State of operators the job no longer has is an
     * error unless {@code allowNonRestoredState}.
     */
    public String submitFromSavepoint(Class<? extends DuraflowJob> job, Map<String, String> params, int parallelism,
            Map<String, String> jobConfig, String path, boolean allowNonRestoredState) {
        String jobId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(job.getName())
                .putAllParams(params).putAllConfig(jobConfig).setParallelism(parallelism)
                .setRestore(RestoreSettingsData.newBuilder().setPath(path)
                        .setAllowNonRestoredState(allowNonRestoredState))
                .build();
        call(stub -> stub.submitJob(request), DEFAULT_TIMEOUT);
        return jobId;
    }

    /**
     * Takes a savepoint of a running streaming job into {@code directory} and returns the
     * savepoint's path; with {@code cancel}, the job is cancelled once it completed.
     */
    public String savepoint(String jobId, String directory, boolean cancel) {
        TriggerSavepointRequest request = TriggerSavepointRequest.newBuilder().setJobId(jobId)
                .setTargetDirectory(directory).setCancelJob(cancel).build();
        return call(stub -> stub.triggerSavepoint(request), DEFAULT_TIMEOUT).getPath();
    }

    /** A running job's status. */
    public JobStatus status(String jobId) {
        return call(stub -> stub.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build()), DEFAULT_TIMEOUT);
    }

    /** Cancels a running job. */
    public void cancel(String jobId) {
        call(stub -> stub.cancelJob(JobIdRequest.newBuilder().setJobId(jobId).build()), DEFAULT_TIMEOUT);
    }

    /**
     * Waits until the job ended and returns how, with its collected records decoded.
     *
     * @throws AssertionError if it did not end within {@code timeout}
     */
    public JobOutcome await(String jobId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobResult result = call(stub -> stub.getJobResult(JobIdRequest.newBuilder().setJobId(jobId).build()),
                    Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            JobState state = result.getStatus().getState();
            if (state == JobState.JOB_FINISHED || state == JobState.JOB_FAILED || state == JobState.JOB_CANCELED) {
                Map<String, String> jobConfig = result.getStatus().getMode().isEmpty() ? Map.of()
                        : Map.of(ExecutionOptions.RUNTIME_MODE.key(), result.getStatus().getMode().toLowerCase());
                RuntimeMode mode = Configuration.fromMap(jobConfig).get(ExecutionOptions.RUNTIME_MODE);
                return new JobOutcome(result, JobPlans.build(result.getStatus().getJobClass(), result.getParamsMap(),
                        1, mode));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("job " + jobId + " did not end within " + timeout + ": " + state);
            }
            pause();
        }
    }

    /** Calls the JobManager, again while none answers (it restarts) until {@code timeout}. */
    private <T> T call(Function<DispatcherGatewayGrpc.DispatcherGatewayBlockingStub, T> call, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return call.apply(gateway.withDeadlineAfter(30, TimeUnit.SECONDS));
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the JobManager answered: " + Rpc.message(e), e);
                }
                pause();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }

    /**
     * Stops everything and deletes the cluster's storage; the extension calls it after the last
     * test. Fails if a TaskManager had a fatal error on its main thread meanwhile (a bug: a
     * TaskManager process would have exited; here it was stopped as a crash and the job may
     * have recovered, so the test would not notice otherwise).
     */
    @Override
    public void close() {
        if (channel != null) {
            Rpc.shutdown(channel);
        }
        if (cluster != null) {
            List<Throwable> fatal = cluster.fatalErrors();
            cluster.close();
            if (!fatal.isEmpty()) {
                IllegalStateException failure = new IllegalStateException(fatal.size() + " fatal error(s) in the"
                        + " main thread of an in-process TaskManager, the first: " + fatal.get(0), fatal.get(0));
                fatal.stream().skip(1).forEach(failure::addSuppressed);
                throw failure;
            }
        }
    }
}

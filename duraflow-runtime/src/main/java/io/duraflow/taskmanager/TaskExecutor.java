package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.mailbox.ThreadMailbox;

import io.duraflow.exchange.blocking.TaskManagerPartitions;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TaskManager's state: its slots and the tasks in them ({@link TaskSlotTable}, their life in
 * {@link TaskLifecycle}), the job plans they run, the final reports the JobManager has not
 * acknowledged ({@link FinalReports}, sent by the {@link TaskReporter}), the tasks' operator
 * events on their way to the JobManager ({@link OperatorEventSender}), the result partitions it
 * holds ({@link TaskManagerPartitions}), and, through its {@link JobManagerConnection}, the
 * registration with the leading JobManager, whose loss the {@link LeaderHandover} handles.
 *
 * <p>All of that is owned by one {@link Mailbox}: every method that changes it runs as a mail
 * (each starts with {@code mailbox.assertRunningInMailbox()}), and other threads only enqueue:
 * gRPC handlers enqueue the request and the mail answers it, answers of calls to the JobManager
 * come back as mails, task threads report and send by enqueueing (and never wait for the
 * JobManager), plans are built (user code) on threads of their own and enqueue the result. So the
 * state has no locks and no volatile flags, and a test drives it step by step with a manual
 * mailbox and clock. This class is the front: it hands what other threads call into the mailbox.
 *
 * <p>Reports: a task's final report (FINISHED, FAILED, CANCELED) is kept until the JobManager
 * acknowledges it, by answering the report's call or a heartbeat that carried it (heartbeats
 * carry every task's state and every unacknowledged final report). A report lost on the way is
 * thus taken from the next heartbeat instead of being dropped, and the task is not run again
 * just because its report came late. When this TaskManager registers with a new leader, the
 * FINISHED reports of earlier leaderships still unacknowledged go with the registration, and the
 * other final reports of earlier leaderships are dropped (see {@link LeaderHandover}).
 */
public final class TaskExecutor implements TaskEnvironment, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

    /** How a request handled in the mailbox answers its caller: once, from the mailbox. */
    public interface Reply {
        void ok();

        void refuse(StatusRuntimeException error);
    }

    // ------------------------------------------------------------ fixed at construction

    private final String tmId;
    private final OperatorChain.Settings settings;
    private final Mailbox mailbox;
    private final TaskExecutorServices services;
    private final LeaderRetrieval leaderRetrieval;
    /** Shared with task and gRPC threads on purpose: see its threading rules. */
    private final TaskManagerPartitions partitions;
    /** Registration with the leader, heartbeats, and the client reports go through. */
    final JobManagerConnection connection;
    /** The network, snapshot pool and timers of streaming tasks; thread-safe, shared with task and gRPC threads. */
    private final StreamingServices streaming;
    private final TaskCheckpointCalls checkpointCalls;

    // ------------------------------------------------------------ mailbox only

    private final TaskSlotTable slots;
    private final JobPlanCache plans;
    private final FinalReports finalReports;
    private final TaskLifecycle lifecycle;
    /** Its {@link OperatorEventSender#send} is the one method a task thread calls: it only enqueues. */
    private final OperatorEventSender operatorEvents;
    private final LeaderHandover handover;

    public TaskExecutor(Configuration config, LeaderRetrieval leaderRetrieval, Path dataDirectory) throws Exception {
        this(config, leaderRetrieval, dataDirectory, EXIT_ON_FATAL_ERROR);
    }

    /**
     * A mail that threw left the executor's own state in doubt: exit, so that the JobManager sees
     * this TaskManager go and runs its tasks elsewhere, instead of limping on.
     */
    static final Consumer<Throwable> EXIT_ON_FATAL_ERROR = error -> {
        LOG.error("Fatal error in the TaskManager's main thread; exiting", error);
        Runtime.getRuntime().halt(70);
    };

    public TaskExecutor(Configuration config, LeaderRetrieval leaderRetrieval, Path dataDirectory,
            Consumer<Throwable> fatalError) throws Exception {
        this(config, leaderRetrieval, dataDirectory,
                TaskExecutorServices.production(fatalError, config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis()));
    }

    TaskExecutor(Configuration config, LeaderRetrieval leaderRetrieval, Path dataDirectory,
            TaskExecutorServices services) throws Exception {
        this("tm-" + UUID.randomUUID().toString().substring(0, 8), config, leaderRetrieval, dataDirectory, services);
    }

    /** With a given id instead of a random one: a deterministic simulation names its TaskManagers itself. */
    TaskExecutor(String tmId, Configuration config, LeaderRetrieval leaderRetrieval, Path dataDirectory,
            TaskExecutorServices services) throws Exception {
        this.tmId = tmId;
        this.services = services;
        this.mailbox = services.mailbox();
        this.slots = new TaskSlotTable(config.get(TaskManagerOptions.SLOTS), mailbox);
        this.partitions = new TaskManagerPartitions(tmId, mailbox, dataDirectory,
                (int) Math.min(Integer.MAX_VALUE, config.get(TaskManagerOptions.PARTITION_WRITE_BUFFER).bytes()),
                JobRecoveryOptions.isEnabled(config),
                config.get(JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT).toMillis());
        Path spillDirectory = Files.createDirectories(dataDirectory.resolve("spill"));
        this.settings = new OperatorChain.Settings(config.get(TaskManagerOptions.AGGREGATION_BUDGET).bytes(),
                config.get(ClusterOptions.COLLECT_MAX_BYTES).bytes(), spillDirectory);
        long planBuildTimeoutMs = config.get(TaskManagerOptions.PLAN_BUILD_TIMEOUT).toMillis();
        this.plans = new JobPlanCache(mailbox, services.planBuilds(), services.planBuilder(), planBuildTimeoutMs,
                new TaskManagerJars(dataDirectory.resolve("jars"), planBuildTimeoutMs), this::leaderClient);
        this.finalReports = new FinalReports(mailbox);
        KeptTasks kept = new KeptTasks(mailbox);
        long leaderLossTimeoutMs = config.get(TaskManagerOptions.LEADER_LOSS_TIMEOUT).toMillis();
        this.leaderRetrieval = leaderRetrieval;
        this.connection = new JobManagerConnection(tmId, slots.capacity(),
                config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis(),
                config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis(), mailbox, services.clients(), new Owner());
        TaskReporter reporter = new TaskReporter(tmId, mailbox, connection, finalReports);
        this.checkpointCalls = new TaskCheckpointCalls(tmId, mailbox, slots, connection);
        this.streaming = new StreamingServices(config, tmId, checkpointCalls,
                Files.createDirectories(dataDirectory.resolve(InstanceDirectory.STATE)));
        this.lifecycle = new TaskLifecycle(tmId, mailbox, services, slots, plans, finalReports, reporter, kept,
                connection, this);
        this.operatorEvents = new OperatorEventSender(mailbox, slots, connection, leaderLossTimeoutMs,
                lifecycle::failBySend);
        this.handover = new LeaderHandover(mailbox, slots, kept, plans, partitions, finalReports, reporter, connection,
                checkpointCalls, operatorEvents, leaderLossTimeoutMs);
    }

    /** The client of the leader followed, to fetch jobs' jars from; mailbox only. */
    private JobManagerClient leaderClient() {
        return connection.client();
    }

    /** The pipelined network of this TaskManager; its service goes on the TaskManager's gRPC server. */
    public NetworkEnvironment network() {
        return streaming.network();
    }

    public String taskManagerId() {
        return tmId;
    }

    /**
     * Follows the leader JobManager and registers with it, waiting up to {@code registrationTimeoutMs}
     * for the first registration; then heartbeats. Not on the mailbox thread.
     *
     * @throws IllegalStateException when no JobManager could be reached in time, or it refused this
     *     TaskManager
     */
    public void start(String ownAddress, long registrationTimeoutMs) throws Exception {
        begin(ownAddress);
        try {
            connection.firstRegistration().get(registrationTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LeaderInfo leader = askMailbox(connection::leader);
            String problem = leader == null
                    ? "no leading JobManager appeared within " + registrationTimeoutMs + " ms; is it running?"
                    : "cannot reach the JobManager at " + leader.address() + " within " + registrationTimeoutMs
                            + " ms; is it running?";
            throw new IllegalStateException(problem);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Starts following the leader and heartbeating, without waiting for the registration. */
    void begin(String ownAddress) throws Exception {
        mailbox.execute(() -> connection.begin(ownAddress));
        leaderRetrieval.start(info -> mailbox.execute(() -> connection.followLeader(info)));
    }

    /**
     * What the connection to the JobManager learns: the loss of the leader and the registration
     * with the next go to the {@link LeaderHandover}; heartbeats carry the tasks' states and
     * reports. Called in the mailbox, only once the executor is constructed.
     */
    private final class Owner implements JobManagerConnection.Owner {
        @Override
        public boolean slotsInUse() {
            return handover.slotsInUse();
        }

        @Override
        public void describeHeld(RegisterTaskManagerRequest.Builder registration) {
            handover.describeHeld(registration);
        }

        @Override
        public int registered(String sessionId) {
            return handover.registered(sessionId);
        }

        @Override
        public void describeTasks(TaskManagerHeartbeat.Builder heartbeat) {
            slots.describe(heartbeat);
            finalReports.addTo(heartbeat);
            heartbeat.setNetworkBytesInUse(streaming.network().bytesInUse())
                    .setNetworkBytesTotal(streaming.network().totalBytes());
        }

        @Override
        public void acknowledged(List<AttemptId> attempts) {
            finalReports.acknowledged(attempts);
        }

        @Override
        public void jobManagerLost(String reason) {
            handover.jobManagerLost(reason);
        }
    }

    // ------------------------------------------------------------ requests from the JobManager (any thread)

    void deploy(TaskDeployment deployment, Reply reply) {
        mailbox.execute(() -> connection.inSession(deployment.getJmSessionId(), reply,
                () -> lifecycle.deploy(deployment, reply)));
    }

    void cancel(String requestSession, AttemptId attempt, Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply, () -> lifecycle.cancel(attempt, reply)));
    }

    void deliver(OperatorEventToTask event, Reply reply) {
        mailbox.execute(() -> connection.inSession(event.getJmSessionId(), reply,
                () -> lifecycle.deliver(event, reply)));
    }

    void adopt(String requestSession, List<AttemptId> attempts, Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply,
                () -> handover.adopt(requestSession, attempts, reply)));
    }

    void triggerCheckpoint(TriggerCheckpointRequests triggers, Reply reply) {
        checkpointCalls.trigger(triggers, reply);
    }

    void notifyCheckpoint(CheckpointNotifications notifications, Reply reply) {
        checkpointCalls.notify(notifications, reply);
    }

    void releasePartitions(String requestSession, String jobId, List<String> partitionIds, boolean onlyKept,
            Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply,
                () -> onReleasePartitions(jobId, partitionIds, onlyKept, reply)));
    }

    private void onReleasePartitions(String jobId, List<String> partitionIds, boolean onlyKept, Reply reply) {
        if (!onlyKept && partitionIds.isEmpty()) {
            plans.forget(jobId);  // the job is over here
        }
        try {
            partitions.release(jobId, partitionIds, onlyKept);
        } catch (IOException e) {
            reply.refuse(io.grpc.Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        reply.ok();
    }

    // ------------------------------------------------------------ partitions served to peers (gRPC threads)

    /** Opens a published partition for a peer's fetch: see {@link TaskManagerPartitions#open}. */
    PartitionFileReader openPartition(String partitionId) throws PartitionNotFoundException, IOException {
        return partitions.open(partitionId);
    }

    // ------------------------------------------------------------ TaskEnvironment (task threads)

    @Override
    public OperatorChain.Settings settings() {
        return settings;
    }

    @Override
    public PartitionFileWriter createPartition(String jobId, String partitionId, int subpartitions) throws Exception {
        return partitions.create(jobId, partitionId, subpartitions);
    }

    @Override
    public void publish(String jobId, String partitionId) {
        partitions.publish(jobId, partitionId);
    }

    @Override
    public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) throws Exception {
        partitions.fetch(location, from, to, frames);
    }

    @Override
    public void releaseSlot(AttemptId attempt) {
        mailbox.execute(() -> lifecycle.freeSlot(attempt));
    }

    /**
     * Hands the event to the mailbox and returns: it goes to the JobManager after the task's
     * earlier events, and is sent again while a leader change explains a failure; an event that
     * cannot be sent fails the task (see {@link OperatorEventSender}).
     */
    @Override
    public void sendOperatorEvent(OperatorEventFromTask event) {
        operatorEvents.send(event);
    }

    /** Task thread: RUNNING is sent once; a final report is kept until acknowledged. */
    @Override
    public void reportState(TaskStateUpdate update) {
        mailbox.execute(() -> lifecycle.reported(update));
    }

    @Override
    public StreamEnvironment streaming() {
        return streaming;
    }

    /** Any thread: what a metrics scrape reads of the slots and the registration, copied in the mailbox. */
    CompletableFuture<TaskManagerMetrics.Snapshot> metricsSnapshot() {
        CompletableFuture<TaskManagerMetrics.Snapshot> snapshot = new CompletableFuture<>();
        mailbox.execute(() -> snapshot.complete(new TaskManagerMetrics.Snapshot(tmId, slots.capacity(), slots.used(),
                connection.isRegistered(), handover.registrations(), handover.jobManagersLost(), slots.metricsViews())));
        return snapshot;
    }

    /** Runs {@code question} in the mailbox and waits for the answer; not from the mailbox itself. */
    private <T> T askMailbox(Supplier<T> question) throws Exception {
        CompletableFuture<T> answer = new CompletableFuture<>();
        mailbox.execute(() -> answer.complete(question.get()));
        return answer.get(5, TimeUnit.SECONDS);
    }

    /** Stops the tasks and leaves the JobManager; any thread but the mailbox's. */
    @Override
    public void close() {
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        mailbox.execute(() -> {
            connection.close();
            slots.cancelAll(false);
            stopped.complete(null);
        });
        if (mailbox instanceof ThreadMailbox) {
            try {
                stopped.get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("The TaskManager's main thread did not stop its tasks in time: {}", e.toString());
            }
        }
        for (Executor executor : new Executor[] {services.taskThreads(), services.planBuilds()}) {
            if (executor instanceof ExecutorService pool) {
                pool.shutdownNow();
            }
        }
        partitions.close();
        streaming.close();
        try {
            leaderRetrieval.close();
        } catch (Exception e) {
            LOG.warn("Closing leader retrieval failed", e);
        }
        if (mailbox instanceof ThreadMailbox owned) {
            owned.close();
        }
    }
}

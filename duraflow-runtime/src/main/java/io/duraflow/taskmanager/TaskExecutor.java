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
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.grpc.Status;
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
 * The TaskManager's state: its slots and the tasks in them ({@link TaskSlotTable}), the job plans
 * they run, the final reports the JobManager has not acknowledged ({@link FinalReports}, sent by
 * the {@link TaskReporter}), the result partitions it holds ({@link TaskManagerPartitions}), and,
 * through its {@link JobManagerConnection}, the registration with the leading JobManager.
 *
 * <p>All of that is owned by one {@link Mailbox}: every method that changes it runs as a mail
 * (each starts with {@code mailbox.assertRunningInMailbox()}), and other threads only enqueue:
 * gRPC handlers enqueue the request and the mail answers it, answers of calls to the JobManager
 * come back as mails, task threads report by enqueueing, plans are built (user code) on threads
 * of their own and enqueue the result. So the state has no locks and no volatile flags, and a
 * test drives it step by step with a manual mailbox and clock.
 *
 * <p>Reports: a task's final report (FINISHED, FAILED, CANCELED) is kept until the JobManager
 * acknowledges it, by answering the report's call or a heartbeat that carried it (heartbeats
 * carry every task's state and every unacknowledged final report). A report lost on the way is
 * thus taken from the next heartbeat instead of being dropped, and the task is not run again
 * just because its report came late. When this TaskManager registers with a new leader, the
 * FINISHED reports of earlier leaderships still unacknowledged go with the registration
 * ({@code earlier_finished_reports}) and the answer acknowledges them; the other final reports of
 * earlier leaderships are dropped, since no JobManager of theirs exists any more. What the new
 * leader does with such a finish: if the job is being recovered, the attempt is the latest one
 * its event log deployed for that subtask, the finish is not logged, the task reads no source
 * (its splits may be missing from the log) and the job did not start over from scratch, it logs
 * the finish (with the report's results, e.g. collected records) before planning the recovery,
 * so that the task counts as finished (see {@code EarlierFinishes}); any other such report it ignores (one of its own session comes by the
 * normal path too, and stays pending here until acknowledged).
 */
public final class TaskExecutor implements TaskEnvironment, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

    /** How a request handled in the mailbox answers its caller: once, from the mailbox. */
    public interface Reply {
        void ok();

        void refuse(StatusRuntimeException error);
    }

    // ------------------------------------------------------------ fixed at construction

    private final String tmId = "tm-" + UUID.randomUUID().toString().substring(0, 8);
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
    private final TaskReporter reporter;
    /** Tasks kept running across a leader change until a new leader adopts them (issue 14). */
    private final KeptTasks kept;
    /** {@code taskmanager.leader-loss.timeout}: 0 cancels the tasks when the leader is lost. */
    private final long leaderLossTimeoutMs;
    /** Registrations with a leader, and JobManagers lost, since start (metrics). */
    private long registrations;
    private long jobManagersLost;

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
        this.plans = new JobPlanCache(mailbox, services.planBuilds(), services.planBuilder(),
                config.get(TaskManagerOptions.PLAN_BUILD_TIMEOUT).toMillis());
        this.finalReports = new FinalReports(mailbox);
        this.kept = new KeptTasks(mailbox);
        this.leaderLossTimeoutMs = config.get(TaskManagerOptions.LEADER_LOSS_TIMEOUT).toMillis();
        this.leaderRetrieval = leaderRetrieval;
        this.connection = new JobManagerConnection(tmId, slots.capacity(),
                config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis(),
                config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis(), mailbox, services.clients(), new Owner());
        this.reporter = new TaskReporter(tmId, mailbox, connection, finalReports);
        this.checkpointCalls = new TaskCheckpointCalls(tmId, mailbox, slots, connection);
        this.streaming = new StreamingServices(config, tmId, checkpointCalls,
                Files.createDirectories(dataDirectory.resolve(InstanceDirectory.STATE)));
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
     * The JobManager is gone. With {@code taskmanager.leader-loss.timeout} above 0, running tasks,
     * batch and streaming, go on for at most that long so that a new leader can adopt them ({@link
     * KeptTasks}); slots whose plan is still being built, and everything when the timeout is 0, stop.
     * A kept streaming task goes on processing; its checkpoint acknowledgements meanwhile are lost
     * (the new leader aborts those checkpoints), and what it reports is {@link StreamingTaskFacts}. With batch job recovery the finished partitions stay for {@code
     * taskmanager.partition-retention.timeout}: the next leader is told about them when this
     * TaskManager registers, and takes them over; otherwise they go now.
     */
    private void jobManagerLost(String reason) {
        mailbox.assertRunningInMailbox();
        int keptNow = 0;
        if (leaderLossTimeoutMs > 0) {
            for (TaskSlotTable.Slot slot : slots.all()) {
                if (slot.task != null) {
                    kept.keep(slot);
                    keptNow++;
                } else {
                    slots.free(slot.deployment.getAttempt());  // its plan was still being built: it never ran
                }
            }
            if (keptNow > 0) {
                kept.startDeadline(leaderLossTimeoutMs, this::leaderLossTimedOut);
            }
        } else {
            slots.cancelAll(true);  // a slot whose plan was still being built goes: it never ran
        }
        plans.clear();
        String tasks = keptNow > 0 ? "keeping " + keptNow + " running tasks for up to " + leaderLossTimeoutMs
                + " ms for a new leader to adopt" : "cancelled the tasks";
        if (partitions.keepForNextLeader(connection::isRegistered)) {
            LOG.warn("Lost the JobManager ({}): {}, keeping {} finished partitions for {} ms", reason, tasks,
                    partitions.size(), partitions.retentionTimeoutMs());
        } else {
            LOG.warn("Lost the JobManager ({}): {}, released all finished partitions", reason, tasks);
        }
    }

    /** No leader adopted these kept tasks within {@code taskmanager.leader-loss.timeout}: they stop. */
    private void leaderLossTimedOut(List<AttemptId> attempts) {
        mailbox.assertRunningInMailbox();
        LOG.warn("No JobManager adopted {} kept tasks within {} ms; cancelling them", attempts.size(),
                leaderLossTimeoutMs);
        for (AttemptId attempt : attempts) {
            TaskSlotTable.Slot slot = slots.get(attempt);
            if (slot != null && slot.task != null) {
                slot.task.cancel();
            }
        }
    }

    /** What the connection to the JobManager learns, applied to the slots, partitions and reports. */
    private final class Owner implements JobManagerConnection.Owner {
        @Override
        public boolean slotsInUse() {
            // Kept tasks hold their slots on purpose: the registration reports them (held_tasks).
            return slots.used() > kept.heldCount();
        }

        @Override
        public void describeHeld(RegisterTaskManagerRequest.Builder registration) {
            partitions.describeHeld(registration);
            for (KeptTasks.Kept task : kept.undecided()) {
                var held = HeldTasks.fromDeployment(task.slot().deployment);
                if (task.slot().streaming != null) {
                    task.slot().streaming.describe(held);
                } else {
                    held.addAllSplits(task.slot().splitsReceived);
                }
                if (task.report() == null) {
                    held.setState(TaskState.RUNNING);
                } else {
                    held.setState(task.report().getState()).setRecordsIn(task.report().getRecordsIn())
                            .setRecordsOut(task.report().getRecordsOut());
                }
                registration.addHeldTasks(held);
            }
            // Finishes an earlier leader may not have logged go to the new one, which can take them
            // instead of running those tasks again (a sink whose finish was lost would write twice).
            registration.addAllEarlierFinishedReports(finalReports.finished());
        }

        @Override
        public int registered(String sessionId) {
            registrations++;
            // A leader numbers its events (and triggers) to a task it did not deploy from 1: those of
            // this session follow what the task received before, whether they come before or after
            // the leader adopts the task (its enumerator may send as soon as it decided).
            for (TaskSlotTable.Slot slot : slots.all()) {
                slot.numberFrom(sessionId);
            }
            partitions.takenOver();
            // The answer acknowledges the earlier finishes the registration carried; the other final
            // reports of earlier sessions (failed, cancelled) concern attempts no leader runs any more.
            return finalReports.keepOnly(sessionId);
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
            jobManagersLost++;
            TaskExecutor.this.jobManagerLost(reason);
        }
    }

    // ------------------------------------------------------------ requests from the JobManager (any thread)

    void deploy(TaskDeployment deployment, Reply reply) {
        mailbox.execute(() -> connection.inSession(deployment.getJmSessionId(), reply,
                () -> onDeploy(deployment, reply)));
    }

    void cancel(String requestSession, AttemptId attempt, Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply, () -> onCancel(attempt, reply)));
    }

    void deliver(OperatorEventToTask event, Reply reply) {
        mailbox.execute(() -> connection.inSession(event.getJmSessionId(), reply, () -> onDeliver(event, reply)));
    }

    void adopt(String requestSession, List<AttemptId> attempts, Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply, () -> onAdopt(requestSession, attempts, reply)));
    }

    void triggerCheckpoint(TriggerCheckpointRequest request, Reply reply) {
        checkpointCalls.trigger(request, reply);
    }

    void notifyCheckpoint(CheckpointNotification notification, Reply reply) {
        checkpointCalls.notify(notification, reply);
    }

    void releasePartitions(String requestSession, String jobId, List<String> partitionIds, boolean onlyKept,
            Reply reply) {
        mailbox.execute(() -> connection.inSession(requestSession, reply,
                () -> onReleasePartitions(jobId, partitionIds, onlyKept, reply)));
    }

    /**
     * Takes a slot and answers at once; the task starts when its job's plan is built (at once if
     * it is known), or fails with the reason the plan could not be built.
     */
    private void onDeploy(TaskDeployment deployment, Reply reply) {
        String key = key(deployment.getAttempt());
        if (slots.get(deployment.getAttempt()) != null || finalReports.contains(deployment.getAttempt())) {
            reply.refuse(Status.ALREADY_EXISTS.withDescription("attempt " + key + " already ran or runs on " + tmId)
                    .asRuntimeException());
            return;
        }
        if (slots.isFull()) {
            reply.refuse(Status.RESOURCE_EXHAUSTED.withDescription("all " + slots.capacity() + " slots of " + tmId
                    + " are busy").asRuntimeException());
            return;
        }
        TaskSlotTable.Slot slot = slots.take(deployment);
        reply.ok();
        plans.plan(deployment).whenComplete((graph, error) -> mailbox.execute(
                () -> planReady(key, slot, graph, error)));
    }

    private void planReady(String key, TaskSlotTable.Slot slot, JobGraph graph, Throwable error) {
        mailbox.assertRunningInMailbox();
        if (slots.get(slot.deployment.getAttempt()) != slot) {
            return;  // cancelled, or the JobManager was lost, while the plan was built
        }
        TaskDeployment deployment = slot.deployment;
        String problem = error != null ? error.getMessage()
                : graph.fingerprint().equals(deployment.getFingerprint()) ? null
                : "plan fingerprint mismatch for job " + deployment.getAttempt().getJobId() + ": JobManager has "
                        + deployment.getFingerprint() + ", TaskManager " + tmId + " built " + graph.fingerprint()
                        + "; make sure both run the same version of the job's jar";
        if (problem == null) {
            try {
                slot.task = services.tasks().create(deployment, graph, this);
                services.taskThreads().execute(slot.task::run);
                return;
            } catch (RuntimeException e) {
                problem = "cannot start the task: " + e;
            }
        }
        freeSlot(deployment.getAttempt());
        LOG.warn("Task {} failed before it started: {}", key, problem);
        taskEnded(reporter.finalReport(deployment, TaskState.FAILED).setFailure(problem).build());
    }

    /** A task left its slot (ended, or never started). */
    private void freeSlot(AttemptId attempt) {
        mailbox.assertRunningInMailbox();
        if (slots.free(attempt)) {
            connection.slotsFreed();
        }
    }

    /**
     * The new leader adopted kept tasks: they belong to its session now (their deployments and
     * every later report say so), and a final report parked meanwhile goes out.
     */
    private void onAdopt(String session, List<AttemptId> attempts, Reply reply) {
        int running = 0;
        for (AttemptId attempt : attempts) {
            TaskSlotTable.Slot slot = slots.get(attempt);
            if (slot != null) {
                slot.deployment = slot.deployment.toBuilder().setJmSessionId(session).build();
                checkpointCalls.adopted(slot);
                askAgain(slot, session);
                running++;
            }
            TaskStateUpdate parked = kept.adopt(attempt, session);
            if (parked != null) {
                reporter.ended(parked);
            } else if (slot == null) {
                LOG.warn("A new leader adopted {}, which no longer runs here", key(attempt));
            }
        }
        LOG.info("The leader of session {} adopted {} tasks ({} still running)", session, attempts.size(), running);
        reply.ok();
    }

    /**
     * An adopted reader whose split request the old leader took but never answered asks the new
     * leader again (a request still being retried reaches the new leader on its own; the enumerator
     * may then assign one split more, which the reader reads like any other).
     */
    private void askAgain(TaskSlotTable.Slot slot, String session) {
        OperatorEventFromTask request = slot.unansweredRequest;
        JobManagerClient client = connection.client();
        if (request == null || client == null) {
            return;
        }
        client.sendOperatorEvent(request.toBuilder().setJmSessionId(session).build()).whenComplete((ack, error) -> {
            if (error != null) {
                LOG.warn("Adopted task {} could not ask the new leader for a split again: {}",
                        key(request.getAttempt()), Rpc.message(error));
            }
        });
    }

    private void onCancel(AttemptId attempt, Reply reply) {
        kept.forget(attempt);
        TaskSlotTable.Slot slot = slots.get(attempt);
        if (slot != null && slot.task != null) {
            slot.task.cancel();
        } else if (slot != null) {
            freeSlot(attempt);
            taskEnded(reporter.finalReport(slot.deployment, TaskState.CANCELED).build());
        }
        reply.ok();
    }

    private void onDeliver(OperatorEventToTask event, Reply reply) {
        TaskSlotTable.Slot slot = slots.get(event.getAttempt());
        if (slot != null && slot.task != null) {
            long sequence = slot.absolute(event.getSequence());
            if (event.getEvent().hasAddSplits() || event.getEvent().hasNoMoreSplits()) {
                slot.unansweredRequest = null;
            }
            if (event.getEvent().hasAddSplits()) {
                slot.splitsReceived.addAll(event.getEvent().getAddSplits().getSplitsList());
                if (slot.streaming != null) {
                    slot.streaming.splitsReceived(sequence, event.getEvent().getAddSplits().getSplitsList());
                }
            }
            slot.lastSequence = Math.max(slot.lastSequence, sequence);
            slot.task.deliver(sequence, event.getEvent());
        } else {
            LOG.debug("Dropping an operator event for {}: the task is not running", Rpc.describe(event.getAttempt()));
        }
        reply.ok();
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

    // ------------------------------------------------------------ task reports

    /** A task ended (or was found unable to start): it leaves its slot, and its final report goes out. */
    private void taskEnded(TaskStateUpdate report) {
        mailbox.assertRunningInMailbox();
        freeSlot(report.getAttempt());
        TaskStateUpdate stamped = kept.stamp(report);
        if (kept.ended(stamped)) {
            LOG.info("Kept task {} ended {} before a new leader decided on it; its report waits for that",
                    key(report.getAttempt()), report.getState());
            return;
        }
        reporter.ended(stamped);
    }

    // ------------------------------------------------------------ partitions served to peers (gRPC threads)

    /** Opens a published partition for a peer's fetch: see {@link TaskManagerPartitions#open}. */
    PartitionFileReader openPartition(String partitionId) throws PartitionNotFoundException, IOException {
        return partitions.open(partitionId);
    }

    private static String key(AttemptId attempt) {
        return Rpc.describe(attempt);
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
        mailbox.execute(() -> freeSlot(attempt));
    }

    /**
     * Sends through the mailbox (which knows the JobManager) and waits for the answer, on the task
     * thread. While the task is kept across a leader change (no leader yet, or one that has not
     * adopted it: it refuses the old session), the event is sent again until it goes through, for
     * at most {@code taskmanager.leader-loss.timeout}: a split request waits for the new leader.
     */
    @Override
    public void sendOperatorEvent(OperatorEventFromTask event) {
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaderLossTimeoutMs);
        long backoffMs = 50;
        while (true) {
            Throwable failure = sendOperatorEventOnce(event);
            if (failure == null) {
                return;
            }
            boolean waitForLeader = leaderLossTimeoutMs > 0 && System.nanoTime() < waitUntil
                    && isLeaderGap(failure) && keptOrLeaderless(event.getAttempt());
            if (!waitForLeader) {
                throw new IllegalStateException("cannot send an operator event to the JobManager: "
                        + Rpc.message(failure), failure);
            }
            try {
                Thread.sleep(backoffMs);  // a backoff between tries, not a wait for a condition
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while sending an operator event to the JobManager", e);
            }
            backoffMs = Math.min(1_000, backoffMs * 2);
        }
    }

    /** One try: null if the JobManager took the event, else why not. */
    private Throwable sendOperatorEventOnce(OperatorEventFromTask event) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        mailbox.execute(() -> {
            TaskSlotTable.Slot slot = slots.get(event.getAttempt());
            JobManagerClient client = connection.client();
            if (client == null || slot == null) {
                sent.completeExceptionally(client == null ? new NoLeaderException()
                        : new IllegalStateException("the task is no longer in a slot"));
                return;
            }
            // The session that owns the task (deployed it, or adopted it), not the current one: a
            // task of an earlier leadership must not pass for one of the new leader's.
            OperatorEventFromTask request = event.toBuilder().setJmSessionId(slot.deployment.getJmSessionId()).build();
            if (event.getEvent().hasRequestSplit()) {
                slot.unansweredRequest = request;  // before any answer can come: see askAgain
            }
            client.sendOperatorEvent(request).whenComplete((ack, error) -> {
                        if (error == null) {
                            sent.complete(null);
                        } else {
                            mailbox.execute(() -> {
                                if (slot.unansweredRequest == request) {
                                    slot.unansweredRequest = null;  // it is sent again, or the task fails
                                }
                            });
                            sent.completeExceptionally(error);
                        }
                    });
        });
        try {
            sent.get(15, TimeUnit.SECONDS);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending an operator event to the JobManager", e);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            return e;
        }
    }

    /** No JobManager is known to this TaskManager (it lost its leader and has no new one yet). */
    private static final class NoLeaderException extends IllegalStateException {
        NoLeaderException() {
            super("no JobManager is known");
        }
    }

    /** Failures a leader change explains: no leader, an unreachable one, or one refusing the old session. */
    private static boolean isLeaderGap(Throwable failure) {
        if (failure instanceof NoLeaderException || failure instanceof TimeoutException) {
            return true;
        }
        Status.Code code = Status.fromThrowable(failure).getCode();
        return code == Status.Code.UNAVAILABLE || code == Status.Code.PERMISSION_DENIED
                || code == Status.Code.DEADLINE_EXCEEDED;
    }

    /**
     * Task thread: whether the attempt may wait for a leader: it still has its slot (it was not
     * cancelled). Asked after a failure a leader change explains; a killed leader's calls fail
     * before this TaskManager notices the loss, so a kept task is not yet known to be kept then.
     */
    private boolean keptOrLeaderless(AttemptId attempt) {
        try {
            return askMailbox(() -> slots.get(attempt) != null);
        } catch (Exception e) {
            return false;
        }
    }

    /** Task thread: RUNNING is sent once; a final report is kept until acknowledged. */
    @Override
    public void reportState(TaskStateUpdate update) {
        mailbox.execute(() -> {
            if (TaskReporter.isFinal(update.getState())) {
                taskEnded(update);
            } else {
                reporter.report(kept.stamp(update));
            }
        });
    }

    @Override
    public StreamEnvironment streaming() {
        return streaming;
    }

    /** Any thread: what a metrics scrape reads of the slots and the registration, copied in the mailbox. */
    CompletableFuture<TaskManagerMetrics.Snapshot> metricsSnapshot() {
        CompletableFuture<TaskManagerMetrics.Snapshot> snapshot = new CompletableFuture<>();
        mailbox.execute(() -> snapshot.complete(new TaskManagerMetrics.Snapshot(tmId, slots.capacity(), slots.used(),
                connection.isRegistered(), registrations, jobManagersLost, slots.metricsViews())));
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

package io.duraflow.simulation;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobmanager.dispatcher.JobDirectories;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.jobmanager.resourcemanager.TaskManagerProbes;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.simulation.SimNetwork.Answer;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.duraflow.util.Futures;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * A JobManager process of the simulation: the start-up of a leadership as {@code
 * JobManagerRunner} does it (a {@link ResourceManager} and a {@link Dispatcher} per session, the
 * heartbeat check, recovery, then publishing the address and starting the recovered jobs), and
 * the TaskManager-facing handlers of {@code JobManagerServices.TaskManagerFacing} (copied: they
 * live in a class bound to the gRPC server), each run as a mail of the main thread. Its main
 * thread, I/O threads, user-code threads and job event log writers are mailboxes of its process,
 * so a kill drops everything they hold.
 */
final class SimJobManager implements SimZooKeeper.Contender {
    private final String name;
    private final String address;
    private final SimProcess process;
    private final SimCluster cluster;
    private final Configuration config;
    private final long heartbeatIntervalMs;
    private final long heartbeatTimeoutMs;
    final SimMailbox main;
    private final SimMailbox io;
    private final SimMailbox userCode;
    private final SimMailbox eventLogWriter;
    /** The current leadership, or null while standing by. Main thread only. */
    private Leadership leadership;
    private int failedLeaderships;
    /** Sessions this process led, in order; for the invariants. */
    private final List<String> sessions = new ArrayList<>();

    /** What exists while this JobManager leads. */
    static final class Leadership {
        final String sessionId;
        final ResourceManager resourceManager;
        final Dispatcher dispatcher;
        Mailbox.Cancellable heartbeatCheck;
        boolean ready;

        Leadership(String sessionId, ResourceManager resourceManager, Dispatcher dispatcher) {
            this.sessionId = sessionId;
            this.resourceManager = resourceManager;
            this.dispatcher = dispatcher;
        }
    }

    SimJobManager(String name, SimCluster cluster, SimScheduler scheduler, Configuration config) {
        this.name = name;
        this.address = name + ".sim:6123";
        this.process = new SimProcess(name);
        this.cluster = cluster;
        this.config = config;
        this.heartbeatIntervalMs = config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
        this.heartbeatTimeoutMs = config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
        this.main = scheduler.mailbox(name + "/main", process);
        this.io = scheduler.mailbox(name + "/io", process);
        this.userCode = scheduler.mailbox(name + "/user-code", process);
        this.eventLogWriter = scheduler.mailbox(name + "/job-event-writer", process);
    }

    String name() {
        return name;
    }

    String address() {
        return address;
    }

    @Override
    public SimProcess process() {
        return process;
    }

    /** The current leadership; null while standing by. */
    Leadership leadership() {
        return leadership;
    }

    // ------------------------------------------------------------------ leadership (JobManagerRunner)

    @Override
    public void grantLeadership(String sessionId) {
        long electedAtMs = main.now();
        main.execute(() -> becomeLeader(sessionId, electedAtMs));
    }

    @Override
    public void revokeLeadership() {
        main.execute(this::standBy);
    }

    private void becomeLeader(String sessionId, long electedAtMs) {
        if (leadership != null) {
            standBy();
        }
        SimTransport transport = new SimTransport(sessionId, process, cluster,
                config.get(ClusterOptions.RPC_ASK_TIMEOUT).toMillis());
        ResourceManager resourceManager = new ResourceManager(main, main::now, heartbeatTimeoutMs, transport,
                TaskManagerProbes.Settings.fromConfiguration(config));
        Dispatcher.Services services = new Dispatcher.Services(cluster.results(), cluster.jobGraphs(),
                JobDirectories.local(cluster.haDirectory()), CleanupRetryPolicy.fromConfiguration(config), io,
                userCode, () -> giveUpLeadership(sessionId), cluster.zooKeeper()::stillLeads,
                cluster.zooKeeper()::checkpointIdCounter, eventLogWriter);
        Dispatcher dispatcher = new Dispatcher(config, sessionId, resourceManager, main, main::now, services);
        Leadership current = new Leadership(sessionId, resourceManager, dispatcher);
        leadership = current;
        sessions.add(sessionId);
        current.heartbeatCheck = main.schedule(() -> checkHeartbeats(current), heartbeatIntervalMs);
        cluster.trace().add(name + ": leads " + sessionId);
        dispatcher.recover(electedAtMs).thenRunAsync(() -> current.ready = true, main)
                .whenCompleteAsync((ignored, error) -> {
                    if (error != null) {
                        cluster.trace().add(name + ": recovery of " + sessionId + " failed: "
                                + Dispatcher.describe(error));
                        giveUpLeadership(sessionId);
                        return;
                    }
                    main.execute(() -> failedLeaderships = 0);
                    try {
                        cluster.zooKeeper().publish(sessionId, address);
                    } catch (RuntimeException e) {
                        giveUpLeadership(sessionId);
                        return;
                    }
                    main.execute(dispatcher::startRecoveredJobs);
                }, io);
    }

    private void checkHeartbeats(Leadership current) {
        if (leadership != current) {
            return;
        }
        current.resourceManager.checkHeartbeats();
        current.heartbeatCheck = main.schedule(() -> checkHeartbeats(current), heartbeatIntervalMs);
    }

    private void standBy() {
        Leadership old = leadership;
        if (old == null) {
            return;
        }
        leadership = null;
        old.heartbeatCheck.cancel();
        old.dispatcher.close();
        old.resourceManager.close();
        cluster.trace().add(name + ": stands by (was " + old.sessionId + ")");
    }

    private void giveUpLeadership(String sessionId) {
        main.execute(() -> {
            failedLeaderships++;
            long delayMs = failedLeaderships <= 1 ? 0 : Math.min(30_000, 1_000L << Math.min(5, failedLeaderships - 2));
            io.execute(() -> cluster.zooKeeper().giveUpAndRejoin(sessionId, delayMs));
        });
    }

    /** The current leadership, or UNAVAILABLE for a standby or one still taking over. Main thread only. */
    private Leadership leading() {
        if (leadership == null) {
            throw Status.UNAVAILABLE.withDescription("JobManager " + address + " is not the leader").asRuntimeException();
        }
        if (!leadership.ready) {
            throw Status.UNAVAILABLE.withDescription("JobManager " + address + " is taking over; try again shortly")
                    .asRuntimeException();
        }
        return leadership;
    }

    // ------------------------------------------------------------------ TaskManager-facing handlers

    /** Runs a handler in the main thread and answers as JobManagerServices.answerAsync does. */
    private <T> void answerAsync(Answer<T> answer, Callable<CompletableFuture<T>> call) {
        CompletableFuture<T> result;
        try {
            result = call.call();
        } catch (Throwable t) {
            result = CompletableFuture.failedFuture(t);
        }
        result.whenComplete((value, failure) -> {
            Throwable error = failure == null ? null : Futures.unwrap(failure);
            if (error == null) {
                answer.ok(value);
            } else if (error instanceof StatusRuntimeException status) {
                answer.fail(status);
            } else {
                cluster.internalError(name + ": a request failed on the main thread: " + error);
                answer.fail(Rpc.internalError(error));
            }
        });
    }

    private <T> void answer(Answer<T> answer, Callable<T> call) {
        answerAsync(answer, () -> CompletableFuture.completedFuture(call.call()));
    }

    void registerTaskManager(RegisterTaskManagerRequest request, Answer<RegisterTaskManagerResponse> answer) {
        answerAsync(answer, () -> {
            Leadership current = leading();
            String session = current.sessionId;
            return current.dispatcher.registerTaskManager(request).thenApply(registered ->
                    RegisterTaskManagerResponse.newBuilder().setJmSessionId(session)
                            .setHeartbeatIntervalMs(heartbeatIntervalMs).setHeartbeatTimeoutMs(heartbeatTimeoutMs)
                            .build());
        });
    }

    void heartbeat(TaskManagerHeartbeat request, Answer<JobManagerHeartbeat> answer) {
        answer(answer, () -> {
            Leadership current = leading();
            boolean known = request.getJmSessionId().equals(current.sessionId)
                    && current.resourceManager.heartbeat(request);
            JobManagerHeartbeat.Builder reply = JobManagerHeartbeat.newBuilder().setRegistered(known);
            List<AttemptId> running = new ArrayList<>();
            for (var task : request.getTasksList()) {
                if (!task.hasFinalReport()) {
                    running.add(task.getAttempt());
                }
                if (known && task.hasMetrics()) {
                    current.dispatcher.onTaskMetrics(task.getAttempt(), task.getMetrics());
                }
                if (known && task.hasFinalReport()) {
                    suspectUnreachablePeer(current, task.getFinalReport());
                    current.dispatcher.onTaskStateUpdate(task.getFinalReport());
                    reply.addAcknowledgedReports(task.getAttempt());
                }
            }
            if (known) {
                current.dispatcher.onTasksRunning(request.getTmId(), running);
            }
            return reply.build();
        });
    }

    void updateTaskState(TaskStateUpdate request, Answer<Ack> answer) {
        answer(answer, () -> {
            Leadership current = leading();
            suspectUnreachablePeer(current, request);
            current.dispatcher.onTaskStateUpdate(request);
            return Ack.getDefaultInstance();
        });
    }

    private static void suspectUnreachablePeer(Leadership current, TaskStateUpdate update) {
        if (!update.getUnreachableTmId().isEmpty() && update.getJmSessionId().equals(current.sessionId)) {
            current.resourceManager.suspect(update.getUnreachableTmId(), "task " + Rpc.describe(update.getAttempt())
                    + " on " + update.getTmId() + " could not reach it at " + update.getUnreachableTmAddress());
        }
    }

    void sendOperatorEvent(OperatorEventFromTask request, Answer<Ack> answer) {
        answer(answer, () -> {
            Leadership current = checkSession(request.getJmSessionId(), "operator event");
            current.dispatcher.onOperatorEvent(request);
            return Ack.getDefaultInstance();
        });
    }

    void acknowledgeCheckpoint(AcknowledgeCheckpointRequest request, Answer<Ack> answer) {
        answer(answer, () -> {
            Leadership current = checkSession(request.getJmSessionId(), "acknowledgement of checkpoint "
                    + request.getCheckpointId());
            current.dispatcher.acknowledgeCheckpoint(request);
            return Ack.getDefaultInstance();
        });
    }

    void declineCheckpoint(DeclineCheckpointRequest request, Answer<Ack> answer) {
        answer(answer, () -> {
            Leadership current = checkSession(request.getJmSessionId(), "decline of checkpoint "
                    + request.getCheckpointId());
            current.dispatcher.declineCheckpoint(request);
            return Ack.getDefaultInstance();
        });
    }

    void reportInputEnded(TaskInputEnded request, Answer<Ack> answer) {
        answer(answer, () -> {
            Leadership current = checkSession(request.getJmSessionId(), "end of input");
            current.dispatcher.onInputEnded(request);
            return Ack.getDefaultInstance();
        });
    }

    private Leadership checkSession(String sessionId, String what) {
        Leadership current = leading();
        if (!sessionId.equals(current.sessionId)) {
            throw Status.PERMISSION_DENIED.withDescription(what + " from JobManager session '" + sessionId
                    + "', but this JobManager leads session " + current.sessionId).asRuntimeException();
        }
        return current;
    }

    /** SIGKILL: everything the process holds is gone; its leadership ends when its session expires. */
    void kill() {
        process.kill();
    }

    @Override
    public String toString() {
        return process.toString();
    }
}

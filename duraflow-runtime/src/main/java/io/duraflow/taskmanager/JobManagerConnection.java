package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a TaskManager stands with the leader JobManager it follows: the leader's address and
 * session, the registration with it (an explicit state machine), heartbeats, and the client the
 * {@link TaskExecutor} sends its reports through. It decides when the JobManager is lost (the
 * leader changed, heartbeats went unanswered, or it forgot this TaskManager) and when to register
 * again; what that means for the tasks, partitions and reports is the {@link Owner}'s business.
 *
 * <p>Mailbox only, like the executor: calls to the JobManager answer on other threads and hop back
 * into the mailbox.
 */
final class JobManagerConnection {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerConnection.class);

    /** What the connection needs from the executor, and tells it; all called in the mailbox. */
    interface Owner {
        /**
         * Whether tasks being cancelled hold slots; after a loss, registration waits until they are
         * freed. Tasks kept for the next leader do not count: the registration reports them.
         */
        boolean slotsInUse();

        /** Adds the kept partitions and the unacknowledged finishes of earlier leaders to a registration. */
        void describeHeld(RegisterTaskManagerRequest.Builder registration);

        /** Registered in {@code sessionId}; returns how many final reports of earlier leaders were dropped. */
        int registered(String sessionId);

        /** Adds every task's state and the unacknowledged final reports to a heartbeat. */
        void describeTasks(TaskManagerHeartbeat.Builder heartbeat);

        /** The JobManager acknowledged these final reports. */
        void acknowledged(List<AttemptId> attempts);

        /** The JobManager is gone; a registration with the next one follows. */
        void jobManagerLost(String reason);
    }

    /** Where this TaskManager stands with the leader it follows. */
    private enum Registration {
        /** No registration in flight; the next heartbeat tick tries. */
        UNREGISTERED,
        /** A registration call is in flight; requests of an unknown session wait for its answer. */
        REGISTERING,
        /** Registered in session {@link #sessionId}. */
        REGISTERED
    }

    private final String tmId;
    private final int slots;
    private final long heartbeatIntervalMs;
    private final long heartbeatTimeoutMs;
    private final Mailbox mailbox;
    private final JobManagerClient.Factory clients;
    private final Owner owner;
    /** Completed by the mailbox at the first registration; {@link TaskExecutor#start} waits for it. */
    private final CompletableFuture<String> firstRegistration = new CompletableFuture<>();

    private String address;
    private LeaderInfo leader;
    private JobManagerClient client;
    private Registration registration = Registration.UNREGISTERED;
    private String sessionId = "";
    /** Requests from a session not known yet, waiting for the registration call's answer. */
    private List<Runnable> waitingForRegistration = new ArrayList<>();
    private long lastJobManagerContactMs;
    private boolean heartbeatInFlight;
    /** When the JobManager was last lost; registration waits a while for cancelled tasks to leave. */
    private long lostJobManagerAtMs = Long.MIN_VALUE / 2;
    /** A registration waits for the slots of cancelled tasks to be freed. */
    private boolean registerWhenSlotsFree;
    /** Sent with every attempt of one registration (see RegisterTaskManagerRequest.registration_id). */
    private String registrationId = UUID.randomUUID().toString();
    /** The last refusal logged, so that a refused TaskManager logs it once, not every heartbeat. */
    private String lastRefusal = "";
    private boolean closed;

    JobManagerConnection(String tmId, int slots, long heartbeatIntervalMs, long heartbeatTimeoutMs, Mailbox mailbox,
            JobManagerClient.Factory clients, Owner owner) {
        this.tmId = tmId;
        this.slots = slots;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.mailbox = mailbox;
        this.clients = clients;
        this.owner = owner;
    }

    /** Starts heartbeating; {@code ownAddress} is what registrations advertise. */
    void begin(String ownAddress) {
        mailbox.assertRunningInMailbox();
        address = ownAddress;
        lastJobManagerContactMs = mailbox.now();
        mailbox.schedule(this::heartbeatTick, heartbeatIntervalMs);
    }

    /** Completes with the session of the first registration, or fails with a refusal. Any thread. */
    CompletableFuture<String> firstRegistration() {
        return firstRegistration;
    }

    /** The leader followed, null before the first announcement. */
    LeaderInfo leader() {
        mailbox.assertRunningInMailbox();
        return leader;
    }

    boolean isRegistered() {
        mailbox.assertRunningInMailbox();
        return registration == Registration.REGISTERED;
    }

    /** The session registered with, empty when not registered. */
    String sessionId() {
        mailbox.assertRunningInMailbox();
        return sessionId;
    }

    /** The client of the leader followed, null before the first announcement. */
    JobManagerClient client() {
        mailbox.assertRunningInMailbox();
        return client;
    }

    /** The slots of the tasks cancelled at a loss are all free: a registration that waited for that goes ahead. */
    void slotsFreed() {
        mailbox.assertRunningInMailbox();
        if (registerWhenSlotsFree) {
            register();
        }
    }

    /**
     * Runs {@code action} if the request comes from the session this TaskManager belongs to. The
     * JobManager may send requests as soon as it registered this TaskManager, before the answer
     * (with the session id) is back here: those wait for the answer instead of being refused.
     */
    void inSession(String requestSession, TaskExecutor.Reply reply, Runnable action) {
        mailbox.assertRunningInMailbox();
        if (registration == Registration.REGISTERED && requestSession.equals(sessionId)) {
            action.run();
        } else if (registration == Registration.REGISTERING) {
            waitingForRegistration.add(() -> inSession(requestSession, reply, action));
        } else {
            reply.refuse(Status.PERMISSION_DENIED.withDescription("request from JobManager session " + requestSession
                    + ", but this TaskManager belongs to session " + sessionId).asRuntimeException());
        }
    }

    /** A new leader was announced (or none, while an election runs). */
    void followLeader(LeaderInfo info) {
        mailbox.assertRunningInMailbox();
        if (closed || info == null || info.equals(leader)) {
            return;
        }
        LeaderInfo previous = leader;
        leader = info;
        if (previous != null && registration == Registration.REGISTERING && client != null
                && info.address().equals(previous.address())) {
            // A new leadership of the JobManager this registration already goes to: its answer
            // names the new session (registrationAnswered follows it). Registering a second time
            // would make the JobManager drop the first registration as a lost TaskManager, with
            // the tasks it just deployed and the finished output it holds (ZooKeeper outage).
            return;
        }
        if (previous != null && registration == Registration.REGISTERED) {
            lost("the leader changed to " + info.address());
        }
        unregistered();
        if (client != null) {
            client.close();
        }
        client = clients.connect(info.address());
        heartbeatInFlight = false;
        register();
    }

    private void register() {
        mailbox.assertRunningInMailbox();
        if (closed || client == null || address == null || registration != Registration.UNREGISTERED) {
            return;
        }
        if (owner.slotsInUse() && mailbox.now() - lostJobManagerAtMs < heartbeatTimeoutMs) {
            // Tasks cancelled when the JobManager was lost still hold their slots. Registering now
            // would offer the JobManager slots that refuse its deployments (each one a failed task
            // and a restart): wait until they are free (see slotsFreed), or a heartbeat timeout.
            registerWhenSlotsFree = true;
            return;
        }
        registerWhenSlotsFree = false;
        registration = Registration.REGISTERING;
        RegisterTaskManagerRequest.Builder request = RegisterTaskManagerRequest.newBuilder().setTmId(tmId)
                .setAddress(address).setSlots(slots).setRegistrationId(registrationId);
        owner.describeHeld(request);
        LOG.info("Registering at JobManager {} with {} kept partitions and {} kept tasks", leader.address(),
                request.getHeldPartitionsCount(), request.getHeldTasksCount());
        sendRegistration(client, leader, request.build());
    }

    private void sendRegistration(JobManagerClient target, LeaderInfo expected, RegisterTaskManagerRequest request) {
        target.register(request).whenComplete((response, error) -> mailbox.execute(
                () -> registrationAnswered(target, expected, request, response, error)));
    }

    private void registrationAnswered(JobManagerClient target, LeaderInfo expected, RegisterTaskManagerRequest request,
            RegisterTaskManagerResponse response, Throwable error) {
        mailbox.assertRunningInMailbox();
        if (target != client || registration != Registration.REGISTERING) {
            return;  // an answer from a leader this TaskManager no longer follows
        }
        int kept = request.getHeldPartitionsCount();
        if (error instanceof StatusRuntimeException status
                && status.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
            // The JobManager may have registered us and be deploying here already (requests of its
            // session wait for this answer): ask again in the same registration, which it answers
            // without taking us for a new TaskManager. A new registration would make it drop this
            // one as lost, with what it deployed here, while the deployments run here regardless.
            LOG.info("Registration at JobManager {} timed out; asking again in the same registration {}",
                    expected.address(), registrationId);
            sendRegistration(target, expected, request);
            return;
        }
        if (error != null) {
            unregistered();
            registrationFailed(expected, error);
            return;
        }
        if (!expected.sessionId().isEmpty() && !expected.sessionId().equals(response.getJmSessionId())) {
            // The JobManager at the leader's address registered us, so it leads session
            // response.getJmSessionId() now: a process leads one session at a time, and answers
            // only once it leads. The session announced for it has thus ended, and this is a new
            // leadership of the same process (after a ZooKeeper outage the JobManager
            // led again before the new announcement arrived here). Refusing the answer would
            // leave us registered there but refusing its deployments with PERMISSION_DENIED, each
            // one a failed task and a restart, and every registration again would lose our
            // kept partitions for it. So follow the session the JobManager named.
            LOG.info("JobManager at {} answered with session {} while {} was announced; it leads again, following"
                    + " the new session", expected.address(), response.getJmSessionId(), expected.sessionId());
            leader = expected.withSession(response.getJmSessionId());
        }
        registration = Registration.REGISTERED;
        sessionId = response.getJmSessionId();
        lastJobManagerContactMs = mailbox.now();
        lastRefusal = "";
        int dropped = owner.registered(sessionId);
        LOG.info("TaskManager {} registered at JobManager {} (session {}) with {} slots and {} kept partitions{}",
                tmId, expected.address(), sessionId, slots, kept,
                dropped == 0 ? "" : "; handed over or dropped " + dropped + " final reports of an earlier leader");
        firstRegistration.complete(sessionId);
        runWaitingRequests();
    }

    /** A refusal is logged once in one line; an unreachable leader is retried quietly. */
    private void registrationFailed(LeaderInfo expected, Throwable error) {
        if (error instanceof StatusRuntimeException status && !Rpc.isUnreachable(status)
                && status.getStatus().getCode() != Status.Code.UNAVAILABLE) {
            String refusal = "the JobManager at " + expected.address() + " refused to register TaskManager " + tmId
                    + ": " + Rpc.message(status);
            if (!refusal.equals(lastRefusal)) {
                LOG.error("{}", refusal);
                lastRefusal = refusal;
            }
            firstRegistration.completeExceptionally(new IllegalStateException(refusal));
            return;
        }
        LOG.info("Registration at JobManager {} failed ({}); trying again", expected.address(), Rpc.message(error));
        if (!firstRegistration.isDone()) {
            // Starting up: try again soon rather than at the next heartbeat.
            mailbox.schedule(this::register, Math.min(100, heartbeatIntervalMs));
        }
    }

    private void unregistered() {
        registration = Registration.UNREGISTERED;
        registrationId = UUID.randomUUID().toString();
        sessionId = "";
        runWaitingRequests();
    }

    /** Decides the requests that waited for a registration answer, now that there is one. */
    private void runWaitingRequests() {
        List<Runnable> waiting = waitingForRegistration;
        waitingForRegistration = new ArrayList<>();
        waiting.forEach(Runnable::run);
    }

    private void heartbeatTick() {
        mailbox.assertRunningInMailbox();
        if (closed) {
            return;
        }
        mailbox.schedule(this::heartbeatTick, heartbeatIntervalMs);
        if (client == null) {
            return;
        }
        if (registration == Registration.UNREGISTERED) {
            register();
            return;
        }
        if (registration != Registration.REGISTERED || heartbeatInFlight) {
            return;
        }
        heartbeatInFlight = true;
        JobManagerClient target = client;
        String session = sessionId;
        target.heartbeat(heartbeat()).whenComplete((answer, error) -> mailbox.execute(
                () -> heartbeatAnswered(target, session, answer, error)));
    }

    private TaskManagerHeartbeat heartbeat() {
        TaskManagerHeartbeat.Builder heartbeat = TaskManagerHeartbeat.newBuilder().setTmId(tmId)
                .setJmSessionId(sessionId).setHeapUsedBytes(heapUsed()).setPeakHeapUsedBytes(peakHeapUsed());
        owner.describeTasks(heartbeat);
        return heartbeat.build();
    }

    private void heartbeatAnswered(JobManagerClient target, String session, JobManagerHeartbeat answer,
            Throwable error) {
        mailbox.assertRunningInMailbox();
        if (target != client) {
            return;
        }
        heartbeatInFlight = false;
        if (!session.equals(sessionId)) {
            return;
        }
        if (error != null) {
            if (mailbox.now() - lastJobManagerContactMs > heartbeatTimeoutMs) {
                lost("no heartbeat answer for " + heartbeatTimeoutMs + " ms");
                unregistered();
                register();
            }
            return;
        }
        lastJobManagerContactMs = mailbox.now();
        if (!answer.getRegistered()) {
            LOG.warn("The JobManager does not know this TaskManager any more; registering again");
            lost("JobManager forgot this TaskManager");
            unregistered();
            register();
            return;
        }
        owner.acknowledged(answer.getAcknowledgedReportsList());
    }

    /** The JobManager is gone: remembered for the registration that follows, then the owner cleans up. */
    private void lost(String reason) {
        lostJobManagerAtMs = mailbox.now();
        owner.jobManagerLost(reason);
    }

    /** Stops following and heartbeating, and ends every call in flight. */
    void close() {
        mailbox.assertRunningInMailbox();
        closed = true;
        if (client != null) {
            client.close();
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Sum of the peak usage of the heap pools since start: an upper bound of peak heap use. */
    private static long peakHeapUsed() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }
}

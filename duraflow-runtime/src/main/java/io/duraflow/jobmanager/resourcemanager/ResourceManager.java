package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Registered TaskManagers, their slots and heartbeats, and the calls to them: the facade over
 * {@link TaskManagerRegistry}, {@link TaskManagerLiveness}, {@link TaskManagerSlotPool}, {@link
 * TaskManagerCalls} and {@link KeptFromEarlierLeader}. Main thread only, like all its parts: no
 * locks. See docs/design/failure-detection.md#resourcemanager.
 */
public final class ResourceManager implements SlotPool, TaskManagerGateways, AutoCloseable {
    /** Told when a TaskManager is gone (heartbeat timeout, confirmed suspicion, or it registered again as new). */
    public interface LossListener {
        void taskManagerLost(String tmId);
    }

    private final Mailbox mainThread;
    private final TaskManagerTransport transport;
    private final TaskManagerRegistry registry;
    private final TaskManagerLiveness liveness;
    private final TaskManagerSlotPool slotPool;
    private final KeptFromEarlierLeader kept = new KeptFromEarlierLeader();
    private final TaskManagerCalls calls;

    /** Calls the TaskManagers over gRPC, in leadership session {@code sessionId}. */
    public ResourceManager(String sessionId, Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs,
            long rpcTimeoutMs) {
        this(sessionId, mainThread, clock, heartbeatTimeoutMs, rpcTimeoutMs, TaskManagerProbes.Settings.DEFAULT);
    }

    /** Calls the TaskManagers over gRPC and settles suspicions with {@code probeSettings}. */
    public ResourceManager(String sessionId, Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs,
            long rpcTimeoutMs, TaskManagerProbes.Settings probeSettings) {
        this(mainThread, clock, heartbeatTimeoutMs, new GrpcTaskManagerTransport(sessionId, rpcTimeoutMs),
                probeSettings);
    }

    /** Calls the TaskManagers through {@code transport} (a fake in tests). */
    public ResourceManager(Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs,
            TaskManagerTransport transport) {
        this(mainThread, clock, heartbeatTimeoutMs, transport, TaskManagerProbes.Settings.DEFAULT);
    }

    public ResourceManager(Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs,
            TaskManagerTransport transport, TaskManagerProbes.Settings probeSettings) {
        this.mainThread = mainThread;
        this.transport = transport;
        this.registry = new TaskManagerRegistry(new TaskManagerRegistry.Lifecycle() {
            @Override
            public void renewed(String tmId) {
                liveness.renewed(tmId);
            }

            @Override
            public void began(TaskManagerRegistry.Registration registration, List<HeldPartition> held,
                    List<HeldTask> keptTasks) {
                beginRegistration(registration, held, keptTasks);
            }

            @Override
            public void ended(String tmId) {
                endRegistration(tmId);
            }
        });
        this.liveness = new TaskManagerLiveness(mainThread, clock, heartbeatTimeoutMs, probeSettings,
                transport::ping, registry::lose, this::slotsAvailable);
        this.slotPool = new TaskManagerSlotPool(mainThread, liveness::isSuspected);
        this.calls = new TaskManagerCalls(mainThread, clock, heartbeatTimeoutMs, transport, registry, liveness, kept);
        transport.reportSuspicionsTo((tmId, why) -> mainThread.execute(() -> suspect(tmId, why)));
    }

    private void beginRegistration(TaskManagerRegistry.Registration registration, List<HeldPartition> held,
            List<HeldTask> keptTasks) {
        String tmId = registration.tmId();
        // Each kept task holds its place in its slot until the job's recovery decides on it.
        slotPool.add(tmId, registration.address(), registration.slots(),
                keptTasks.stream().map(HeldTask::getSlot).toList());
        liveness.began(tmId);
        kept.add(tmId, held, keptTasks);
        transport.connect(tmId, registration.address());
    }

    private void endRegistration(String tmId) {
        liveness.ended(tmId);
        calls.dropDeployRetries(tmId);
        List<CompletableFuture<Void>> stopped = kept.ended(tmId);
        slotPool.remove(tmId);
        transport.disconnect(tmId);
        stopped.forEach(task -> task.complete(null));
    }

    private void slotsAvailable() {
        slotPool.slotsAvailable();
    }

    public void addLossListener(LossListener listener) {
        registry.addLossListener(listener);
    }

    /** Called when slots become available (a TaskManager registered). */
    public void addSlotListener(Runnable listener) {
        slotPool.addSlotListener(listener);
    }

    /** Called with each registration and the partitions the TaskManager kept from an earlier leader. */
    public void addRegistrationListener(BiConsumer<String, List<HeldPartition>> listener) {
        registry.addRegistrationListener(listener);
    }

    /** The partitions of a job that registered TaskManagers kept from before this leadership: partition id -> TaskManager. */
    public Map<String, String> heldPartitions(String jobId) {
        return kept.heldPartitions(jobId);
    }

    public void register(String tmId, String address, int slots) {
        register(tmId, address, slots, List.of());
    }

    /**
     * Registers a TaskManager whose address is {@code host:port}; any other address is refused
     * before anything is registered, since every deployment to it would fail.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an address that is not host:port
     */
    public void register(String tmId, String address, int slots, List<HeldPartition> held) {
        register(tmId, address, slots, held, "");
    }

    /**
     * Registers a TaskManager like {@link #register(String, String, int, List)}. A registration
     * that repeats the one in place (same non-empty {@code registrationId}, address and slots)
     * changes nothing: the TaskManager's call timed out before the answer came, and it is still
     * the TaskManager registered, running what was deployed to it since. Anything else replaces
     * the registration in place as a lost TaskManager.
     */
    public void register(String tmId, String address, int slots, List<HeldPartition> held, String registrationId) {
        register(tmId, address, slots, held, registrationId, List.of());
    }

    /**
     * Registers a TaskManager like {@link #register(String, String, int, List, String)}, with the
     * tasks it kept running across a leader change: each holds one of its slots until the job's
     * recovery adopts it ({@link #adopt}) or cancels it ({@link #cancelHeld}).
     */
    public void register(String tmId, String address, int slots, List<HeldPartition> held, String registrationId,
            List<HeldTask> keptTasks) {
        if (registry.register(tmId, address, slots, held, registrationId, keptTasks)) {
            slotPool.slotsAvailable();
        }
    }

    /**
     * A heartbeat: the TaskManager lives, and what it reports of its memory (heap, network) goes
     * into the cluster overview. Returns false when the TaskManager is unknown (it must register again).
     */
    public boolean heartbeat(TaskManagerHeartbeat heartbeat) {
        return liveness.heartbeat(heartbeat);
    }

    /** Drops TaskManagers whose last heartbeat is older than the timeout. */
    public void checkHeartbeats() {
        liveness.checkHeartbeats();
    }

    /**
     * A sign that the TaskManager may be gone (see {@link TaskManagerProbes}): it is pinged at once,
     * and lost if nobody answers. Ignored for a TaskManager that is not registered.
     */
    public void suspect(String tmId, String why) {
        liveness.suspect(tmId, why, null);
    }

    /** Whether the TaskManager is being probed now (a suspicion is being settled); for tests and status. */
    boolean isSuspected(String tmId) {
        return liveness.isSuspected(tmId);
    }

    /** Probes started so far; for tests. */
    long probesStarted() {
        return liveness.probesStarted();
    }

    // ------------------------------------------------------------------ tasks kept across a leader change

    /** Tasks of {@code jobId} that registered TaskManagers kept running and no recovery decided on yet. */
    public List<ReportedTask> reportedTasks(String jobId) {
        return kept.reportedTasks(jobId);
    }

    /** Whether the TaskManager reported this attempt as kept and no recovery decided on it yet. */
    public boolean isHeld(String tmId, AttemptId attempt) {
        return kept.isHeld(tmId, attempt);
    }

    /** The kept tasks of one TaskManager not decided on yet (their attempts). */
    public List<AttemptId> heldTasksOn(String tmId) {
        return kept.heldTasksOn(tmId);
    }

    /**
     * This leader adopted kept tasks: they keep their slots, and the TaskManager learns that they
     * belong to this session now. {@code answered} is told on the main thread once it knows, {@code
     * onFailure} if it could not be told.
     */
    public void adopt(String tmId, List<AttemptId> attempts, Runnable answered, Consumer<Throwable> onFailure) {
        kept.forgetTasks(tmId, attempts);
        transport.adopt(tmId, attempts, () -> mainThread.execute(answered),
                error -> mainThread.execute(() -> onFailure.accept(error)));
    }

    /**
     * A kept task is not adopted (it runs again, or is stale): cancelled there. Its slot is free
     * here once the TaskManager's heartbeat no longer lists it ({@link #tasksRunning}) or the
     * TaskManager is gone, and so does the future (on the main thread): only then may another
     * attempt of the same subtask start, so that two never run at once.
     */
    public CompletableFuture<Void> cancelHeld(String tmId, AttemptId attempt) {
        List<HeldTask> forgotten = kept.forgetTasks(tmId, List.of(attempt));
        if (forgotten.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        transport.cancel(tmId, attempt);
        return kept.stopping(tmId, forgotten.get(0));
    }

    /**
     * What a TaskManager's heartbeat says it runs: a cancelled kept task it no longer runs has
     * stopped, and its slot is free.
     */
    public void tasksRunning(String tmId, Collection<AttemptId> attempts) {
        List<KeptFromEarlierLeader.Stopping> stopped = kept.running(tmId, attempts);
        stopped.forEach(task -> slotPool.free(tmId, task.slot()));
        stopped.forEach(task -> task.stopped().complete(null));
    }

    /** host:port of a registered TaskManager, or null. */
    public String address(String tmId) {
        return registry.address(tmId);
    }

    /** The cluster overview's TaskManagers: registration, free slots and the last heartbeat's memory figures. */
    public List<TaskManagerInfo> describe() {
        List<TaskManagerInfo> infos = new ArrayList<>();
        for (TaskManagerRegistry.Registration tm : registry.registrations()) {
            TaskManagerInfo.Builder info = TaskManagerInfo.newBuilder().setTmId(tm.tmId()).setAddress(tm.address())
                    .setSlots(tm.slots()).setFreeSlots(slotPool.freeSlotsOn(tm.tmId()));
            infos.add(liveness.withMemoryFigures(tm.tmId(), info).build());
        }
        return infos;
    }

    // ------------------------------------------------------------------ SlotPool

    @Override
    public SlotOffer allocate(String slot) {
        return slotPool.allocate(slot);
    }

    @Override
    public boolean isAllocated(String slot) {
        return slotPool.isAllocated(slot);
    }

    @Override
    public int freeSlots() {
        return slotPool.freeSlots();
    }

    @Override
    public void free(String tmId, String slot) {
        slotPool.free(tmId, slot);
    }

    @Override
    public Collection<String> taskManagers() {
        return slotPool.taskManagers();
    }

    // ------------------------------------------------------------------ TaskManagerGateways

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        calls.deploy(tmId, deployment, onFailure);
    }

    /**
     * Cancels on the TaskManager an attempt that no job master runs there (see {@code
     * Dispatcher#onTasksRunning}); its slot is free in this JobManager's count already.
     */
    public void cancelStray(String tmId, AttemptId attempt) {
        calls.cancelStray(tmId, attempt);
    }

    /** See {@link TaskManagerCalls#cancel}: a deployment still waiting to be sent again fails instead. */
    @Override
    public void cancel(String tmId, AttemptId attempt) {
        calls.cancel(tmId, attempt);
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        calls.sendOperatorEvent(tmId, attempt, nodeId, sequence, event);
    }

    @Override
    public void triggerCheckpoint(String tmId, TriggerCheckpointRequests triggers) {
        calls.triggerCheckpoint(tmId, triggers);
    }

    @Override
    public void notifyCheckpoint(String tmId, CheckpointNotifications notifications) {
        calls.notifyCheckpoint(tmId, notifications);
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
        calls.releasePartitions(tmId, jobId, partitionIds);
    }

    /**
     * Releases partitions like {@link #releasePartitions(String, String, List)} and tells {@code
     * released}, on the main thread, how that ended: null once the TaskManager confirmed it, or if
     * it is not registered (any more); else the failure (a refusal, or no answer within the RPC
     * timeout). A TaskManager that is gone took its partitions with it, or reports them as kept
     * when it registers again, and they are released then (see {@code StoredJobRecovery}).
     */
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds, Consumer<Throwable> released) {
        calls.releasePartitions(tmId, jobId, partitionIds, released);
    }

    /**
     * Releases partitions a TaskManager reported as kept from an earlier JobManager (all of the
     * job's if {@code partitionIds} is empty). Unlike {@link #releasePartitions} it never touches
     * a partition written since, so it may race with the deployment of a new attempt.
     */
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        calls.releaseKeptPartitions(tmId, jobId, partitionIds);
    }

    /** Ends every probe, drops every connection and forgets every TaskManager: the leadership ends. */
    @Override
    public void close() {
        liveness.close();
        transport.close();
        registry.clear();
        slotPool.clear();
    }
}

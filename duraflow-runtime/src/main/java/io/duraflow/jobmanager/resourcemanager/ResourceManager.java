package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.jobmanager.dispatcher.StoredJobRecovery;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered TaskManagers, their slots and heartbeats, and the calls to them (through a {@link
 * TaskManagerTransport}, gRPC outside tests). Main thread only; RPC callbacks come back through
 * the main thread's {@link Mailbox#execute}.
 *
 * <p>A TaskManager is lost when its heartbeats stop for {@code heartbeat.timeout}, or, much
 * sooner, when a sign that it died (a broken connection, a refused call, a task that could not
 * reach it) is confirmed by pings that nobody answers ({@link TaskManagerProbes}, see {@link
 * #suspect}). While it is probed its slots are not offered.
 *
 * <p>A deployment the TaskManager refuses because all its slots are busy ({@code
 * RESOURCE_EXHAUSTED}) is sent again, not failed: this JobManager counts a slot free as soon as it
 * asks for a task's cancellation (a failover, a job that ends), the TaskManager only once the task
 * has stopped, so for a moment the two disagree. Sent again after 20 ms, then twice as long each
 * time up to 500 ms, for at most {@code heartbeat.timeout}; after that the deployment fails as
 * before. A cancellation of the attempt, or the loss of the TaskManager, ends the retries. Without
 * them, each refusal failed the task and used up one of the job's restarts (a job with few
 * restarts failed for good after a TaskManager loss).
 */
public final class ResourceManager implements SlotPool, TaskManagerGateways, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ResourceManager.class);

    /** Told when a TaskManager is gone (heartbeat timeout, confirmed suspicion, or it registered again as new). */
    public interface LossListener {
        void taskManagerLost(String tmId);
    }

    private static final class Registered {
        final String tmId;
        final String address;
        final int slots;
        /** The TaskManager's id of this registration; empty: unknown (every registration is new). */
        final String registrationId;
        int usedSlots;
        long lastHeartbeatMs;
        long heapUsed;
        long peakHeapUsed;
        long networkBytesInUse;
        long networkBytesTotal;

        Registered(String tmId, String address, int slots, String registrationId, long now) {
            this.tmId = tmId;
            this.registrationId = registrationId;
            this.address = address;
            this.slots = slots;
            this.lastHeartbeatMs = now;
        }
    }

    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final long heartbeatTimeoutMs;
    private final TaskManagerTransport transport;
    private final TaskManagerProbes probes;
    private final Map<String, Registered> taskManagers = new LinkedHashMap<>();
    private final List<LossListener> listeners = new ArrayList<>();
    private final List<Runnable> slotListeners = new ArrayList<>();
    private final List<java.util.function.BiConsumer<String, List<io.duraflow.rpc.proto.HeldPartition>>>
            registrationListeners = new ArrayList<>();
    /** Where a partition kept through a JobManager failover is, and whose it is. */
    private record Held(String tmId, String jobId) {}

    /**
     * By TaskManager: tasks it kept running across the leader change and reported when it
     * registered (issue 14), until the job's recovery adopts or cancels them. Each holds a slot.
     */
    private final Map<String, List<io.duraflow.rpc.proto.HeldTask>> heldTasks = new LinkedHashMap<>();

    /** By partition id: partitions kept through a JobManager failover. */
    private final Map<String, Held> heldPartitions = new LinkedHashMap<>();

    static final long FIRST_DEPLOY_RETRY_MS = 20;
    static final long MAX_DEPLOY_RETRY_MS = 500;

    /** A deployment refused for busy slots, waiting to be sent again. */
    private record DeployRetry(String tmId, Mailbox.Cancellable timer, Consumer<Throwable> onFailure) {}

    /** By attempt: deployments waiting to be sent again. */
    private final Map<AttemptId, DeployRetry> deployRetries = new LinkedHashMap<>();

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
        this.clock = clock;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.transport = transport;
        this.probes = new TaskManagerProbes(mainThread, clock, probeSettings, transport::ping,
                new TaskManagerProbes.Verdicts() {
                    @Override
                    public void lost(String tmId, String why) {
                        lose(tmId, why);
                    }

                    @Override
                    public void kept(String tmId) {
                        // Its slots were held back while it was probed.
                        slotListeners.forEach(Runnable::run);
                    }
                });
        transport.reportSuspicionsTo((tmId, why) -> mainThread.execute(() -> suspect(tmId, why)));
    }

    public void addLossListener(LossListener listener) {
        listeners.add(listener);
    }

    /** Called when slots become available (a TaskManager registered). */
    public void addSlotListener(Runnable listener) {
        slotListeners.add(listener);
    }

    /** Called with each registration and the partitions the TaskManager kept from an earlier leader. */
    public void addRegistrationListener(
            java.util.function.BiConsumer<String, List<io.duraflow.rpc.proto.HeldPartition>> listener) {
        registrationListeners.add(listener);
    }

    /**
     * The partitions of a job that registered TaskManagers kept from before this leadership:
     * partition id -> TaskManager. By the job id the TaskManager reported, not by the partition
     * id's prefix: job ids may contain '-', so "job" is a prefix of "job-v1"'s partitions.
     */
    public Map<String, String> heldPartitions(String jobId) {
        Map<String, String> held = new LinkedHashMap<>();
        heldPartitions.forEach((partitionId, where) -> {
            if (where.jobId().equals(jobId)) {
                held.put(partitionId, where.tmId());
            }
        });
        return held;
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
    public void register(String tmId, String address, int slots, List<io.duraflow.rpc.proto.HeldPartition> held) {
        register(tmId, address, slots, held, "");
    }

    /**
     * Registers a TaskManager like {@link #register(String, String, int, List)}. A registration
     * that repeats the one in place (same non-empty {@code registrationId}, address and slots)
     * changes nothing: the TaskManager's call timed out before the answer came, and it is still
     * the TaskManager registered, running what was deployed to it since. Anything else replaces
     * the registration in place as a lost TaskManager.
     */
    public void register(String tmId, String address, int slots, List<io.duraflow.rpc.proto.HeldPartition> held,
            String registrationId) {
        register(tmId, address, slots, held, registrationId, List.of());
    }

    /**
     * Registers a TaskManager like {@link #register(String, String, int, List, String)}, with the
     * tasks it kept running across a leader change: each holds one of its slots until the job's
     * recovery adopts it ({@link #adopt}) or cancels it ({@link #cancelHeld}).
     */
    public void register(String tmId, String address, int slots, List<io.duraflow.rpc.proto.HeldPartition> held,
            String registrationId, List<io.duraflow.rpc.proto.HeldTask> keptTasks) {
        TaskManagerAddresses.port(tmId, address);
        Registered current = taskManagers.get(tmId);
        if (current != null && !registrationId.isEmpty() && registrationId.equals(current.registrationId)
                && address.equals(current.address) && slots == current.slots) {
            LOG.info("TaskManager {} at {} registered again in the same registration {} (its first answer came"
                    + " too late for it): already registered, nothing changes", tmId, address, registrationId);
            current.lastHeartbeatMs = clock.getAsLong();
            return;
        }
        Registered previous = taskManagers.remove(tmId);
        if (previous != null) {
            probes.forget(tmId);
            dropDeployRetries(tmId);
            transport.disconnect(tmId);
            heldPartitions.values().removeIf(where -> where.tmId().equals(tmId));
            heldTasks.remove(tmId);
            notifyLost(tmId);
        }
        Registered registered = new Registered(tmId, address, slots, registrationId, clock.getAsLong());
        registered.usedSlots = Math.min(slots, keptTasks.size());
        taskManagers.put(tmId, registered);
        if (!keptTasks.isEmpty()) {
            heldTasks.put(tmId, new ArrayList<>(keptTasks));
        }
        transport.connect(tmId, address);
        for (io.duraflow.rpc.proto.HeldPartition partition : held) {
            heldPartitions.put(partition.getPartitionId(), new Held(tmId, partition.getJobId()));
        }
        LOG.info("TaskManager {} at {} registered with {} slots, {} kept partitions and {} kept running tasks ({}"
                + " TaskManagers)", tmId, address, slots, held.size(), keptTasks.size(), taskManagers.size());
        registrationListeners.forEach(listener -> listener.accept(tmId, held));
        slotListeners.forEach(Runnable::run);
    }

    /**
     * A heartbeat: the TaskManager lives, and what it reports of its memory (heap, network) goes
     * into the cluster overview. Returns false when the TaskManager is unknown (it must register again).
     */
    public boolean heartbeat(io.duraflow.rpc.proto.TaskManagerHeartbeat heartbeat) {
        Registered tm = taskManagers.get(heartbeat.getTmId());
        if (tm == null) {
            return false;
        }
        tm.lastHeartbeatMs = clock.getAsLong();
        tm.heapUsed = heartbeat.getHeapUsedBytes();
        tm.peakHeapUsed = heartbeat.getPeakHeapUsedBytes();
        tm.networkBytesInUse = heartbeat.getNetworkBytesInUse();
        tm.networkBytesTotal = heartbeat.getNetworkBytesTotal();
        return true;
    }

    /** Drops TaskManagers whose last heartbeat is older than the timeout. */
    public void checkHeartbeats() {
        long now = clock.getAsLong();
        List<String> expired = new ArrayList<>();
        for (Registered tm : taskManagers.values()) {
            if (now - tm.lastHeartbeatMs > heartbeatTimeoutMs) {
                expired.add(tm.tmId);
            }
        }
        for (String tmId : expired) {
            lose(tmId, "it missed heartbeats for " + heartbeatTimeoutMs + " ms");
        }
    }

    /**
     * A sign that the TaskManager may be gone (see {@link TaskManagerProbes}): it is pinged at once,
     * and lost if nobody answers. Ignored for a TaskManager that is not registered.
     */
    public void suspect(String tmId, String why) {
        suspect(tmId, why, null);
    }

    private void suspect(String tmId, String why, Runnable onKept) {
        mainThread.assertRunningInMailbox();
        if (taskManagers.containsKey(tmId)) {
            probes.suspect(tmId, why, onKept);
        } else if (onKept != null) {
            onKept.run();
        }
    }

    /** Whether the TaskManager is being probed now (a suspicion is being settled); for tests and status. */
    boolean isSuspected(String tmId) {
        return probes.isProbing(tmId);
    }

    /** Probes started so far; for tests. */
    long probesStarted() {
        return probes.probesStarted();
    }

    /** Forgets a TaskManager and tells the jobs; it registers again if it is still alive. */
    private void lose(String tmId, String why) {
        Registered tm = taskManagers.remove(tmId);
        if (tm == null) {
            return;
        }
        probes.forget(tmId);
        LOG.warn("TaskManager {} is lost: {}", tmId, why);
        dropDeployRetries(tmId);
        heldPartitions.values().removeIf(where -> where.tmId().equals(tmId));
        heldTasks.remove(tmId);
        transport.disconnect(tmId);
        notifyLost(tmId);
    }

    // ------------------------------------------------------------------ tasks kept across a leader change

    /** Tasks of {@code jobId} that registered TaskManagers kept running and no recovery decided on yet. */
    public List<io.duraflow.jobmanager.recovery.ReportedTask> reportedTasks(String jobId) {
        List<io.duraflow.jobmanager.recovery.ReportedTask> reports = new ArrayList<>();
        heldTasks.forEach((tmId, tasks) -> {
            for (io.duraflow.rpc.proto.HeldTask task : tasks) {
                if (task.getAttempt().getJobId().equals(jobId)) {
                    reports.add(io.duraflow.jobmanager.recovery.ReportedTasks.fromProto(tmId, task,
                            !task.getRunId().isEmpty()));
                }
            }
        });
        return reports;
    }

    /** Whether the TaskManager reported this attempt as kept and no recovery decided on it yet. */
    public boolean isHeld(String tmId, AttemptId attempt) {
        for (io.duraflow.rpc.proto.HeldTask task : heldTasks.getOrDefault(tmId, List.of())) {
            if (task.getAttempt().equals(attempt)) {
                return true;
            }
        }
        return false;
    }

    /** The kept tasks of one TaskManager not decided on yet (their attempts). */
    public List<AttemptId> heldTasksOn(String tmId) {
        List<AttemptId> attempts = new ArrayList<>();
        for (io.duraflow.rpc.proto.HeldTask task : heldTasks.getOrDefault(tmId, List.of())) {
            attempts.add(task.getAttempt());
        }
        return attempts;
    }

    /**
     * This leader adopted kept tasks: they keep their slots, and the TaskManager learns that they
     * belong to this session now. {@code answered} is told on the main thread once it knows, {@code
     * onFailure} if it could not be told.
     */
    public void adopt(String tmId, List<AttemptId> attempts, Runnable answered, Consumer<Throwable> onFailure) {
        forgetHeld(tmId, attempts);
        transport.adopt(tmId, attempts, () -> mainThread.execute(answered),
                error -> mainThread.execute(() -> onFailure.accept(error)));
    }

    /** A kept task is not adopted (it runs again, or is stale): cancelled there, its slot free here. */
    public void cancelHeld(String tmId, AttemptId attempt) {
        if (forgetHeld(tmId, List.of(attempt)) > 0) {
            transport.cancel(tmId, attempt);
            free(tmId);
        }
    }

    private int forgetHeld(String tmId, List<AttemptId> attempts) {
        List<io.duraflow.rpc.proto.HeldTask> tasks = heldTasks.get(tmId);
        if (tasks == null) {
            return 0;
        }
        int before = tasks.size();
        tasks.removeIf(task -> attempts.contains(task.getAttempt()));
        int removed = before - tasks.size();
        if (tasks.isEmpty()) {
            heldTasks.remove(tmId);
        }
        return removed;
    }

    /** host:port of a registered TaskManager, or null. */
    public String address(String tmId) {
        Registered tm = taskManagers.get(tmId);
        return tm == null ? null : tm.address;
    }

    private void notifyLost(String tmId) {
        for (LossListener listener : listeners) {
            listener.taskManagerLost(tmId);
        }
    }

    public List<TaskManagerInfo> describe() {
        List<TaskManagerInfo> infos = new ArrayList<>();
        for (Registered tm : taskManagers.values()) {
            infos.add(TaskManagerInfo.newBuilder().setTmId(tm.tmId).setAddress(tm.address).setSlots(tm.slots)
                    .setFreeSlots(tm.slots - tm.usedSlots).setHeapUsedBytes(tm.heapUsed)
                    .setPeakHeapUsedBytes(tm.peakHeapUsed).setNetworkBytesInUse(tm.networkBytesInUse)
                    .setNetworkBytesTotal(tm.networkBytesTotal).build());
        }
        return infos;
    }

    // ------------------------------------------------------------------ SlotPool

    /**
     * The TaskManager with the most free slots, so tasks spread over the cluster; never one that
     * is being probed.
     */
    @Override
    public SlotOffer allocate() {
        Registered best = null;
        for (Registered tm : taskManagers.values()) {
            if (tm.usedSlots < tm.slots && !probes.isProbing(tm.tmId)
                    && (best == null || tm.slots - tm.usedSlots > best.slots - best.usedSlots)) {
                best = tm;
            }
        }
        if (best == null) {
            return null;
        }
        best.usedSlots++;
        return new SlotOffer(best.tmId, best.address);
    }

    /** Free slots, without those of TaskManagers being probed. */
    @Override
    public int freeSlots() {
        int free = 0;
        for (Registered tm : taskManagers.values()) {
            if (!probes.isProbing(tm.tmId)) {
                free += Math.max(0, tm.slots - tm.usedSlots);
            }
        }
        return free;
    }

    @Override
    public void free(String tmId) {
        Registered tm = taskManagers.get(tmId);
        if (tm != null && tm.usedSlots > 0) {
            tm.usedSlots--;
            // Other jobs may be waiting for this slot; they schedule after the current event.
            mainThread.execute(() -> slotListeners.forEach(Runnable::run));
        }
    }

    @Override
    public Collection<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }

    // ------------------------------------------------------------------ TaskManagerGateways

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        deploy(tmId, deployment, onFailure, clock.getAsLong() + heartbeatTimeoutMs, FIRST_DEPLOY_RETRY_MS);
    }

    private void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure, long retryUntilMs,
            long retryDelayMs) {
        Registered target = taskManagers.get(tmId);
        if (target == null) {
            mainThread.execute(() -> onFailure.accept(new IllegalStateException("TaskManager " + tmId + " is gone")));
            return;
        }
        transport.deploy(tmId, deployment, error -> mainThread.execute(() -> {
            if (taskManagers.get(tmId) == target && slotsStillBusy(error)
                    && clock.getAsLong() + retryDelayMs <= retryUntilMs) {
                AttemptId attempt = deployment.getAttempt();
                LOG.info("TaskManager {} has no free slot for {} yet ({}); sending it again in {} ms", tmId,
                        Rpc.describe(attempt), Rpc.message(error), retryDelayMs);
                deployRetries.put(attempt, new DeployRetry(tmId, mainThread.schedule(() -> {
                    if (deployRetries.remove(attempt) != null) {
                        deploy(tmId, deployment, onFailure, retryUntilMs,
                                Math.min(MAX_DEPLOY_RETRY_MS, retryDelayMs * 2));
                    }
                }, retryDelayMs), onFailure));
            } else if (taskManagers.get(tmId) == target && refusedConnection(error)) {
                // Nobody may listen there any more: the TaskManager is probably gone, whatever its
                // last heartbeat said. If the probe confirms it, losing it resets the deployment
                // with everything else it held; if the TaskManager answers, only the deployment failed.
                String why = "a deployment to it failed (" + Rpc.message(error) + ")";
                if (probes.enabled()) {
                    suspect(tmId, why, () -> onFailure.accept(error));
                } else {
                    // Without probes, as before them: a refused deployment is taken as the verdict, or
                    // every retry would go to the dead TaskManager's free slots until its heartbeats time out.
                    lose(tmId, why);
                }
            } else {
                // Either the registration this call went to has ended (the TaskManager registered
                // again, and its channel was shut down by us: that is no sign of the new
                // registration being gone; issue 8 lost a live TaskManager's kept outputs that
                // way), or the call failed for another reason: only the deployment failed.
                onFailure.accept(error);
            }
        }));
    }

    /** The TaskManager's registration ended: its deployments are not sent again. */
    private void dropDeployRetries(String tmId) {
        deployRetries.values().removeIf(retry -> {
            if (retry.tmId().equals(tmId)) {
                retry.timer().cancel();
                return true;
            }
            return false;
        });
    }

    /** Whether the TaskManager refused a deployment because its slots are still held by stopping tasks. */
    private static boolean slotsStillBusy(Throwable error) {
        return error instanceof io.grpc.StatusRuntimeException status
                && status.getStatus().getCode() == io.grpc.Status.Code.RESOURCE_EXHAUSTED;
    }

    /**
     * Whether a failed call shows that nobody listens at the TaskManager's address: UNAVAILABLE
     * from the network, not from a channel this JobManager shut down itself ({@link
     * TaskManagerTransport.ClosedByUs}), which says nothing about the TaskManager.
     */
    private static boolean refusedConnection(Throwable error) {
        return error instanceof io.grpc.StatusRuntimeException status
                && status.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE;
    }

    /**
     * Cancels the attempt on the TaskManager, which confirms with a CANCELED update. An attempt
     * whose deployment waits to be sent again (its slots were busy) never reached the TaskManager,
     * which knows nothing to confirm: its deployment fails instead (after this call, on the main
     * thread), so the attempt ends and a restart or a cancellation waiting for it goes on.
     */
    /**
     * Cancels on the TaskManager an attempt that no job master runs there (see {@code
     * Dispatcher#onTasksRunning}); its slot is free in this JobManager's count already.
     */
    public void cancelStray(String tmId, AttemptId attempt) {
        if (taskManagers.containsKey(tmId)) {
            transport.cancel(tmId, attempt);
        }
    }

    @Override
    public void cancel(String tmId, AttemptId attempt) {
        DeployRetry retry = deployRetries.remove(attempt);
        if (retry != null) {
            retry.timer().cancel();
            mainThread.execute(() -> retry.onFailure().accept(new IllegalStateException("cancelled before it reached"
                    + " TaskManager " + tmId + ", whose slots were still busy")));
            return;
        }
        if (taskManagers.containsKey(tmId)) {
            transport.cancel(tmId, attempt);
        }
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        if (taskManagers.containsKey(tmId)) {
            transport.sendOperatorEvent(tmId, attempt, nodeId, sequence, event);
        }
    }

    @Override
    public void triggerCheckpoint(String tmId, io.duraflow.rpc.proto.TriggerCheckpointRequest request) {
        if (taskManagers.containsKey(tmId)) {
            transport.triggerCheckpoint(tmId, request);
        }
    }

    @Override
    public void notifyCheckpoint(String tmId, io.duraflow.rpc.proto.CheckpointNotification notification) {
        if (taskManagers.containsKey(tmId)) {
            transport.notifyCheckpoint(tmId, notification);
        }
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
        forgetHeld(tmId, jobId, partitionIds);
        if (taskManagers.containsKey(tmId)) {
            transport.releasePartitions(tmId, jobId, partitionIds);
        }
    }

    /**
     * Releases partitions like {@link #releasePartitions(String, String, List)} and tells {@code
     * released}, on the main thread, how that ended: null once the TaskManager confirmed it, or if
     * it is not registered (any more); else the failure (a refusal, or no answer within the RPC
     * timeout). A TaskManager that is gone took its partitions with it, or reports them as kept
     * when it registers again, and they are released then (see {@code StoredJobRecovery}).
     */
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds, Consumer<Throwable> released) {
        forgetHeld(tmId, jobId, partitionIds);
        if (!taskManagers.containsKey(tmId)) {
            released.accept(null);
            return;
        }
        transport.releasePartitions(tmId, jobId, partitionIds, error -> mainThread.execute(
                () -> released.accept(taskManagers.containsKey(tmId) ? error : null)));
    }

    /**
     * Releases partitions a TaskManager reported as kept from an earlier JobManager (all of the
     * job's if {@code partitionIds} is empty). Unlike {@link #releasePartitions} it never touches
     * a partition written since, so it may race with the deployment of a new attempt.
     */
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        forgetHeld(tmId, jobId, partitionIds);
        if (taskManagers.containsKey(tmId)) {
            transport.releaseKeptPartitions(tmId, jobId, partitionIds);
        }
    }

    private void forgetHeld(String tmId, String jobId, List<String> partitionIds) {
        if (partitionIds.isEmpty()) {
            heldPartitions.values().removeIf(where -> where.tmId().equals(tmId) && where.jobId().equals(jobId));
        } else {
            partitionIds.forEach(heldPartitions::remove);
        }
    }

    @Override
    public void close() {
        taskManagers.keySet().forEach(probes::forget);
        transport.close();
        taskManagers.clear();
    }
}

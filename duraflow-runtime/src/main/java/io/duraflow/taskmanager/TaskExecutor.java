package io.duraflow.taskmanager;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PartitionChunk;
import io.duraflow.rpc.proto.FetchPartitionRequest;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.shuffle.CorruptPartitionException;
import io.duraflow.shuffle.PartitionFileReader;
import io.duraflow.shuffle.PartitionFileWriter;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.PartitionNotFoundException;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TaskManager's state: its slots and running tasks, its partitions, and its connection to
 * the JobManager (registration and heartbeats). RPC handlers call in from gRPC threads; the
 * task and partition maps are concurrent, and a task's operators are touched only by its thread.
 */
public final class TaskExecutor implements TaskEnvironment, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

    private final String tmId = "tm-" + UUID.randomUUID().toString().substring(0, 8);
    private final int slots;
    private final PartitionStore partitions;
    private final OperatorChain.Settings settings;
    private final int writeBufferBytes;
    /** Running tasks by attempt; one per slot. Insertions hold {@link #slotLock}, removals need not. */
    private final Map<String, Task> tasks = new ConcurrentHashMap<>();
    /** Makes "is a slot free" and "take it" one step for concurrent deployments. */
    private final Object slotLock = new Object();
    private final Map<String, JobGraph> plans = new ConcurrentHashMap<>();
    private final Map<String, ManagedChannel> peers = new ConcurrentHashMap<>();
    private final ExecutorService taskThreads;
    private final ScheduledExecutorService heartbeats;
    private final LeaderRetrieval leaderRetrieval;
    /** The leader this TaskManager follows; changed only on the heartbeat thread. */
    private volatile LeaderInfo leader;
    private volatile ManagedChannel jobManagerChannel;
    private volatile JobManagerGatewayGrpc.JobManagerGatewayBlockingStub jobManager;
    private final long heartbeatIntervalMs;
    private final long heartbeatTimeoutMs;
    private volatile String address;
    private volatile String jmSessionId = "";
    /**
     * Set while a registration call is in flight. The JobManager may deploy to this TaskManager as
     * soon as it has registered it, before the answer (with the session id) is back here; such
     * requests wait for the answer instead of being refused.
     */
    private final Object registration = new Object();
    private boolean registering;
    private volatile long lastJobManagerContactMs = System.currentTimeMillis();
    /** Keep finished partitions through a JobManager failover (batch job recovery). */
    private final boolean retainPartitions;
    private final long retentionTimeoutMs;
    /** Releases the kept partitions if no new leader took them over in time. Heartbeat thread only. */
    private java.util.concurrent.ScheduledFuture<?> retentionExpiry;

    public TaskExecutor(Configuration config, LeaderRetrieval leaderRetrieval, Path dataDirectory) throws Exception {
        this.slots = config.get(TaskManagerOptions.SLOTS);
        this.partitions = new PartitionStore(dataDirectory);
        Path spillDirectory = java.nio.file.Files.createDirectories(dataDirectory.resolve("spill"));
        this.settings = new OperatorChain.Settings(config.get(TaskManagerOptions.AGGREGATION_BUDGET).bytes(),
                config.get(ClusterOptions.COLLECT_MAX_BYTES).bytes(), spillDirectory);
        this.writeBufferBytes = (int) Math.min(Integer.MAX_VALUE,
                config.get(TaskManagerOptions.PARTITION_WRITE_BUFFER).bytes());
        this.heartbeatIntervalMs = config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
        this.heartbeatTimeoutMs = config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
        AtomicInteger threadIds = new AtomicInteger();
        this.taskThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "task-" + threadIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tm-heartbeat");
            t.setDaemon(true);
            return t;
        });
        this.leaderRetrieval = leaderRetrieval;
        this.retainPartitions = io.duraflow.config.JobRecoveryOptions.isEnabled(config);
        this.retentionTimeoutMs = config.get(io.duraflow.config.JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT).toMillis();
    }

    public String taskManagerId() {
        return tmId;
    }

    /**
     * Follows the leader JobManager and registers with it, waiting up to {@code timeoutMs} for
     * the first registration; then heartbeats.
     *
     * @throws IllegalStateException when no JobManager could be reached in time
     */
    public void start(String ownAddress, long registrationTimeoutMs) throws Exception {
        this.address = ownAddress;
        leaderRetrieval.start(info -> {
            // A call to the old leader may hold the heartbeat thread (a frozen leader answers
            // nothing until the deadline): close its channel now so that call fails at once.
            ManagedChannel current = jobManagerChannel;
            LeaderInfo known = leader;
            if (info != null && known != null && !info.equals(known) && current != null) {
                current.shutdownNow();
            }
            heartbeats.execute(() -> followLeader(info));
        });
        long deadline = System.currentTimeMillis() + registrationTimeoutMs;
        while (jmSessionId.isEmpty()) {
            if (System.currentTimeMillis() > deadline) {
                LeaderInfo known = leader;
                throw new IllegalStateException(known == null
                        ? "no leading JobManager appeared within " + registrationTimeoutMs + " ms; is it running?"
                        : "cannot reach the JobManager at " + known.address() + " within " + registrationTimeoutMs
                                + " ms; is it running?");
            }
            heartbeats.submit(this::registerIfNeeded).get();
            if (jmSessionId.isEmpty()) {
                Thread.sleep(Math.min(100, heartbeatIntervalMs));
            }
        }
        heartbeats.scheduleWithFixedDelay(this::heartbeat, heartbeatIntervalMs, heartbeatIntervalMs,
                TimeUnit.MILLISECONDS);
    }

    /** Heartbeat thread: a new leader was announced (or none, while an election runs). */
    private void followLeader(LeaderInfo info) {
        if (info == null || info.equals(leader)) {
            return;
        }
        LeaderInfo previous = leader;
        leader = info;
        if (previous != null && !jmSessionId.isEmpty()) {
            jobManagerLost("the leader changed to " + info.address());
        }
        jmSessionId = "";
        ManagedChannel old = jobManagerChannel;
        jobManagerChannel = Rpc.channel(info.address());
        jobManager = JobManagerGatewayGrpc.newBlockingStub(jobManagerChannel);
        if (old != null) {
            Rpc.shutdown(old);
        }
        registerIfNeeded();
    }

    private void registerIfNeeded() {
        if (jmSessionId.isEmpty() && jobManager != null) {
            register();
        }
    }

    private boolean register() {
        synchronized (registration) {
            registering = true;
        }
        try {
            return registerOnce();
        } finally {
            synchronized (registration) {
                registering = false;
                registration.notifyAll();
            }
        }
    }

    private boolean registerOnce() {
        LeaderInfo target = leader;
        try {
            RegisterTaskManagerRequest.Builder request = RegisterTaskManagerRequest.newBuilder().setTmId(tmId)
                    .setAddress(address).setSlots(slots);
            for (PartitionStore.StoredPartition held : partitions.keepPublished()) {
                request.addHeldPartitions(io.duraflow.rpc.proto.HeldPartition.newBuilder().setJobId(held.jobId())
                        .setPartitionId(held.partitionId()));
            }
            RegisterTaskManagerResponse response = jobManager.withDeadlineAfter(5, TimeUnit.SECONDS)
                    .registerTaskManager(request.build());
            if (target != null && !target.sessionId().isEmpty()
                    && !target.sessionId().equals(response.getJmSessionId())) {
                LOG.info("JobManager answered with session {} but the leader is {}; waiting",
                        response.getJmSessionId(), target.sessionId());
                return false;
            }
            jmSessionId = response.getJmSessionId();
            lastJobManagerContactMs = System.currentTimeMillis();
            if (retentionExpiry != null) {
                // The new leader knows the kept partitions now and releases what it does not need.
                retentionExpiry.cancel(false);
                retentionExpiry = null;
            }
            LOG.info("TaskManager {} registered at JobManager {} (session {}) with {} slots and {} kept partitions",
                    tmId, jobManagerChannel.authority(), jmSessionId, slots, request.getHeldPartitionsCount());
            return true;
        } catch (StatusRuntimeException e) {
            LOG.debug("Registration failed: {}", e.getStatus());
            return false;
        }
    }

    private void heartbeat() {
        if (jobManager == null) {
            return;
        }
        if (jmSessionId.isEmpty()) {
            register();
            return;
        }
        try {
            JobManagerHeartbeat answer = jobManager.withDeadlineAfter(heartbeatTimeoutMs, TimeUnit.MILLISECONDS)
                    .heartbeat(TaskManagerHeartbeat.newBuilder().setTmId(tmId).setJmSessionId(jmSessionId)
                            .setHeapUsedBytes(heapUsed()).setPeakHeapUsedBytes(peakHeapUsed()).build());
            lastJobManagerContactMs = System.currentTimeMillis();
            if (!answer.getRegistered()) {
                LOG.warn("The JobManager does not know this TaskManager any more; registering again");
                jobManagerLost("JobManager forgot this TaskManager");
                jmSessionId = "";
                register();
            }
        } catch (StatusRuntimeException e) {
            if (System.currentTimeMillis() - lastJobManagerContactMs > heartbeatTimeoutMs) {
                jobManagerLost("no heartbeat answer for " + heartbeatTimeoutMs + " ms");
                jmSessionId = "";
                register();
            }
        } catch (RuntimeException e) {
            LOG.error("Heartbeat failed", e);
        }
    }

    /**
     * The JobManager is gone. Its running tasks stop. With batch job recovery the finished
     * partitions stay for {@code taskmanager.partition-retention.timeout}: the next leader is told
     * about them when this TaskManager registers, and takes them over; otherwise they go now.
     */
    private void jobManagerLost(String reason) {
        for (Task task : tasks.values()) {
            task.cancel();
        }
        plans.clear();
        if (!retainPartitions) {
            LOG.warn("Lost the JobManager ({}): cancelled the tasks, released all partitions", reason);
            partitions.releaseAll();
            return;
        }
        LOG.warn("Lost the JobManager ({}): cancelled the tasks, keeping {} finished partitions for {} ms", reason,
                partitions.size(), retentionTimeoutMs);
        if (retentionExpiry != null) {
            retentionExpiry.cancel(false);
        }
        retentionExpiry = heartbeats.schedule(() -> {
            if (jmSessionId.isEmpty()) {
                LOG.warn("No JobManager took over the kept partitions within {} ms; releasing them", retentionTimeoutMs);
                partitions.releaseAll();
            }
        }, retentionTimeoutMs, TimeUnit.MILLISECONDS);
    }

    // ------------------------------------------------------------------ RPC handlers

    void deploy(TaskDeployment deployment) {
        checkSession(deployment.getJmSessionId());
        JobGraph graph = plans.computeIfAbsent(deployment.getAttempt().getJobId(),
                id -> JobPlans.build(deployment.getJobClass(), deployment.getParamsMap(),
                        deployment.getDefaultParallelism()));
        if (!graph.fingerprint().equals(deployment.getFingerprint())) {
            throw Status.FAILED_PRECONDITION.withDescription("plan fingerprint mismatch for job "
                    + deployment.getAttempt().getJobId() + ": JobManager has " + deployment.getFingerprint()
                    + ", TaskManager " + tmId + " built " + graph.fingerprint()
                    + "; make sure both run the same version of the job's jar").asRuntimeException();
        }
        Task task = new Task(deployment, graph, this);
        String key = key(deployment.getAttempt());
        synchronized (slotLock) {
            if (tasks.size() >= slots) {
                throw Status.RESOURCE_EXHAUSTED.withDescription("all " + slots + " slots of " + tmId + " are busy")
                        .asRuntimeException();
            }
            if (tasks.putIfAbsent(key, task) != null) {
                throw Status.ALREADY_EXISTS.withDescription("attempt " + key + " already runs on " + tmId)
                        .asRuntimeException();
            }
        }
        taskThreads.execute(() -> {
            try {
                task.run();
            } finally {
                tasks.remove(key, task);
            }
        });
    }

    void cancel(String sessionId, AttemptId attempt) {
        checkSession(sessionId);
        Task task = tasks.get(key(attempt));
        if (task != null) {
            task.cancel();
        }
    }

    void deliver(OperatorEventToTask event) {
        checkSession(event.getJmSessionId());
        Task task = tasks.get(key(event.getAttempt()));
        if (task != null) {
            task.deliver(event.getEvent());
        } else {
            LOG.debug("Dropping an operator event for {}: the task is not running", Rpc.describe(event.getAttempt()));
        }
    }

    void releasePartitions(String sessionId, String jobId, java.util.List<String> partitionIds, boolean onlyKept) {
        checkSession(sessionId);
        if (onlyKept) {
            partitions.releaseKept(jobId, partitionIds);
            return;
        }
        if (partitionIds.isEmpty()) {
            partitions.releaseJob(jobId);
            plans.remove(jobId);
            return;
        }
        for (String partitionId : partitionIds) {
            partitions.release(jobId, partitionId);
        }
    }

    /**
     * Opens a published partition to stream its frames, for a local fetch (task thread) or a peer's
     * (gRPC thread). The one place that decides what counts as "gone", for both.
     *
     * @throws PartitionNotFoundException if it is not published here, was released while being
     *     opened, or its files are corrupt: in each case only running its producer again helps
     * @throws IOException if the files cannot be read for another reason
     */
    PartitionFileReader openPartition(String partitionId) throws PartitionNotFoundException, IOException {
        PartitionStore.StoredPartition stored = partitions.lookup(partitionId);
        if (stored == null) {
            throw new PartitionNotFoundException(partitionId, "not on TaskManager " + tmId);
        }
        try {
            return PartitionFileReader.open(stored.dataFile(), stored.indexFile());
        } catch (CorruptPartitionException | NoSuchFileException e) {
            throw new PartitionNotFoundException(partitionId, "on TaskManager " + tmId + ": " + e.getMessage(), e);
        }
    }

    private void checkSession(String sessionId) {
        awaitRegistrationAnswer(sessionId);
        if (!sessionId.equals(jmSessionId)) {
            throw Status.PERMISSION_DENIED.withDescription("request from JobManager session " + sessionId
                    + ", but this TaskManager belongs to session " + jmSessionId).asRuntimeException();
        }
    }

    /** A request from a session this TaskManager does not know yet may race its registration's answer. */
    private void awaitRegistrationAnswer(String sessionId) {
        if (sessionId.equals(jmSessionId)) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (registration) {
            while (registering && !sessionId.equals(jmSessionId)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(registration, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String key(AttemptId attempt) {
        return Rpc.describe(attempt);
    }

    // ------------------------------------------------------------------ TaskEnvironment

    @Override
    public OperatorChain.Settings settings() {
        return settings;
    }

    @Override
    public PartitionFileWriter createPartition(String jobId, String partitionId, int subpartitions) throws Exception {
        return partitions.create(jobId, partitionId, subpartitions, writeBufferBytes);
    }

    @Override
    public void publish(String jobId, String partitionId) {
        partitions.publish(jobId, partitionId);
    }

    @Override
    public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) throws Exception {
        if (location.getTmId().equals(tmId)) {
            try (PartitionFileReader reader = openPartition(location.getPartitionId())) {
                TaskManagerService.forEachChunk(reader, from, to, frames);
            }
            return;
        }
        ManagedChannel channel = peers.computeIfAbsent(location.getTmAddress(), Rpc::channel);
        // The blocking iterator's call lives until it is drained or cancelled: if the consumer
        // throws, cancelling the context ends the call, and the producer closes its reader.
        Context.CancellableContext call = Context.current().withCancellation();
        try {
            call.run(() -> {
                Iterator<PartitionChunk> chunks = TaskManagerGatewayGrpc.newBlockingStub(channel)
                        .fetchPartition(FetchPartitionRequest.newBuilder().setPartitionId(location.getPartitionId())
                                .setSubpartitionFrom(from).setSubpartitionTo(to).build());
                while (chunks.hasNext()) {
                    frames.accept(chunks.next().getFrames().toByteArray());
                }
            });
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.NOT_FOUND || code == Status.Code.UNAVAILABLE
                    || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED) {
                throw new PartitionNotFoundException(location.getPartitionId(),
                        "TaskManager " + location.getTmId() + " at " + location.getTmAddress() + ": " + Rpc.message(e));
            }
            throw e;
        } finally {
            call.cancel(null);
        }
    }

    @Override
    public void releaseSlot(AttemptId attempt) {
        tasks.remove(key(attempt));
    }

    @Override
    public void sendOperatorEvent(OperatorEventFromTask event) {
        try {
            jobManager.withDeadlineAfter(10, TimeUnit.SECONDS).sendOperatorEvent(event);
        } catch (StatusRuntimeException e) {
            throw new IllegalStateException("cannot send an operator event to the JobManager: " + Rpc.message(e), e);
        }
    }

    @Override
    public void reportState(TaskStateUpdate update) {
        for (int attempt = 1; ; attempt++) {
            try {
                jobManager.withDeadlineAfter(10, TimeUnit.SECONDS).updateTaskState(update);
                return;
            } catch (StatusRuntimeException e) {
                if (attempt >= 3 || !Rpc.isUnreachable(e)) {
                    LOG.warn("Could not report {} of {} to the JobManager: {}", update.getState(),
                            Rpc.describe(update.getAttempt()), Rpc.message(e));
                    return;
                }
            }
        }
    }

    // ------------------------------------------------------------------ metrics

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

    @Override
    public void close() {
        heartbeats.shutdownNow();
        for (Task task : tasks.values()) {
            task.cancel();
        }
        taskThreads.shutdownNow();
        partitions.releaseAll();
        peers.values().forEach(Rpc::shutdown);
        try {
            leaderRetrieval.close();
        } catch (Exception e) {
            LOG.warn("Closing leader retrieval failed", e);
        }
        if (jobManagerChannel != null) {
            Rpc.shutdown(jobManagerChannel);
        }
    }
}

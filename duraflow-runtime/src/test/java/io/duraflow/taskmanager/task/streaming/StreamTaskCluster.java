package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.config.Configuration;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.RpcServers;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointKind;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.state.filemerging.FileMergingManagers;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.grpc.Server;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * One TaskManager for the {@code StreamTask*Test} classes: a real network environment (with a
 * gRPC server on loopback for remote channels), snapshot pool and timers. The test acts as the
 * JobManager: what the tasks send it (split requests, acknowledgements, declines, input ends,
 * state reports) is recorded here, and the static helpers build what it sends the tasks.
 */
final class StreamTaskCluster implements TaskEnvironment, StreamEnvironment, AutoCloseable {
    /** The tasks' jobs take checkpoints (the tests trigger them): without, a task finishes at the end of its input. */
    static final String INTERVAL = "execution.checkpointing.interval";

    final String tmId;
    /** Where this TaskManager's tasks' calls to the JobManager are recorded. */
    final StreamTaskCluster jobManager;
    final NetworkEnvironment network;
    final Server server;
    final ExecutorService snapshotPool = Executors.newFixedThreadPool(2);
    /** Where asynchronous snapshot parts run; a test may queue them to run them itself. */
    volatile Executor snapshotExecutor = snapshotPool;
    final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    final List<AttemptId> splitRequests = new CopyOnWriteArrayList<>();
    final List<AcknowledgeCheckpointRequest> acks = new CopyOnWriteArrayList<>();
    final List<DeclineCheckpointRequest> declines = new CopyOnWriteArrayList<>();
    final List<AttemptId> inputEnds = new CopyOnWriteArrayList<>();
    final List<TaskStateUpdate> reports = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    /** Runs on the task thread when a split request is sent, before the task looks at its mails again. */
    volatile Consumer<AttemptId> onSplitRequest = attempt -> { };
    /** The test's temporary directory: spill files and local state go below it. */
    private final Path dir;
    private final FileMergingManagers fileMerging = new FileMergingManagers("tm-test", Runnable::run);

    /**
     * @param recordInto the TaskManager whose lists record this one's calls to the JobManager, so
     *     that a test sees the calls of all its TaskManagers in one place; null to record here
     */
    StreamTaskCluster(String tmId, StreamTaskCluster recordInto, Path dir) {
        this.tmId = tmId;
        this.jobManager = recordInto == null ? this : recordInto;
        this.dir = dir;
        this.network = new NetworkEnvironment(Configuration.fromMap(Map.of("taskmanager.network.memory", "16 mb")),
                tmId, System::nanoTime);
        this.server = RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port", network.service());
    }

    String address() {
        return "127.0.0.1:" + server.getPort();
    }

    void start(Task task) {
        Thread thread = new Thread(task, "task " + task.attempt().getVertex() + "/" + task.attempt().getSubtask());
        threads.add(thread);
        thread.start();
    }

    void joinAll() throws InterruptedException {
        for (Thread thread : threads) {
            thread.join(30_000);
            assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        }
        threads.clear();
    }

    List<TaskState> finalStates() {
        return reports.stream().map(TaskStateUpdate::getState).filter(state -> state != TaskState.RUNNING).toList();
    }

    // ------------------------------------------------------------ the test as JobManager

    void awaitSplitRequests(AttemptId attempt, int count) {
        await().atMost(Duration.ofSeconds(30)).until(() -> splitRequests.stream()
                .filter(attempt::equals).count() >= count);
    }

    /** Waits for the acknowledgements of {@code tasks} tasks, asserts no task declined, and returns them by attempt. */
    Map<AttemptId, AcknowledgeCheckpointRequest> awaitAcks(long checkpointId, int tasks) {
        await().atMost(Duration.ofSeconds(30)).until(() -> acks.stream()
                .filter(ack -> ack.getCheckpointId() == checkpointId).count() == tasks || !declines.isEmpty());
        assertThat(declines).isEmpty();
        Map<AttemptId, AcknowledgeCheckpointRequest> byAttempt = new HashMap<>();
        for (AcknowledgeCheckpointRequest ack : acks) {
            if (ack.getCheckpointId() == checkpointId) {
                assertThat(ack.getJmSessionId()).isEqualTo("session");
                byAttempt.put(ack.getAttempt(), ack);
            }
        }
        return byAttempt;
    }

    static AttemptId attempt(JobVertex vertex, int subtask, int attempt) {
        return AttemptId.newBuilder().setJobId("job").setVertex(vertex.id()).setSubtask(subtask).setAttempt(attempt)
                .build();
    }

    static void deliverSplit(Map<AttemptId, Task> tasks, AttemptId attempt, long from, long to) {
        byte[] split = RangeSplit.SERIALIZER.toBytes(new RangeSplit(from, to));
        deliver(tasks, attempt, OperatorEvent.newBuilder()
                .setAddSplits(AddSplits.newBuilder().addSplits(ByteString.copyFrom(split))).build());
    }

    static OperatorEvent noMoreSplits() {
        return OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance()).build();
    }

    static void deliver(Map<AttemptId, Task> tasks, AttemptId attempt, OperatorEvent event) {
        tasks.get(attempt).deliver(event);
    }

    static void trigger(Map<AttemptId, Task> tasks, AttemptId attempt, long checkpointId) {
        tasks.get(attempt).triggerCheckpoint(TriggerCheckpointRequest.newBuilder()
                .setAttempt(attempt).setCheckpointId(checkpointId).setTimestampMs(1_000 * checkpointId)
                .setKind(CheckpointKind.CHECKPOINT_KIND_CHECKPOINT).build());
    }

    static CheckpointNotification completed(AttemptId attempt, long checkpointId) {
        return CheckpointNotification.newBuilder().setAttempt(attempt)
                .setCheckpointId(checkpointId).setCompleted(true).build();
    }

    // ------------------------------------------------------------ TaskEnvironment, StreamEnvironment

    @Override
    public String taskManagerId() {
        return tmId;
    }

    @Override
    public OperatorChain.Settings settings() {
        return new OperatorChain.Settings(1 << 20, 64 << 20, dir);
    }

    @Override
    public ResultPartitionWriter createPartition(String jobId, String partitionId, int subpartitions) {
        throw new UnsupportedOperationException("streaming tasks write pipelined partitions");
    }

    @Override
    public void publish(String jobId, String partitionId) {
        throw new UnsupportedOperationException("streaming tasks publish nothing");
    }

    @Override
    public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) {
        throw new UnsupportedOperationException("streaming tasks fetch nothing");
    }

    @Override
    public void sendOperatorEvent(OperatorEventFromTask event) {
        splitRequests.add(event.getAttempt());
        onSplitRequest.accept(event.getAttempt());
    }

    @Override
    public void releaseSlot(AttemptId attempt) {}

    @Override
    public void reportState(TaskStateUpdate update) {
        jobManager.reports.add(update);
    }

    @Override
    public StreamEnvironment streaming() {
        return this;
    }

    @Override
    public PipelinedResultPartition createPipelinedPartition(String partitionId, int subpartitions) {
        return network.createPartition(partitionId, subpartitions);
    }

    @Override
    public PipelinedInputGate createInputGate(String consumer, List<NetworkEnvironment.ChannelLocation> channels) {
        return network.createInputGate(consumer, channels);
    }

    @Override
    public Path localStateDirectory() {
        return dir.resolve("state");
    }

    @Override
    public FileMergingManagers fileMerging() {
        return fileMerging;
    }

    @Override
    public Executor snapshotPool() {
        return snapshotExecutor;
    }

    @Override
    public ScheduledExecutorService timers() {
        return timers;
    }

    @Override
    public long currentTimeMs() {
        return System.currentTimeMillis();
    }

    @Override
    public CompletableFuture<Void> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
        jobManager.acks.add(request);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> declineCheckpoint(DeclineCheckpointRequest request) {
        jobManager.declines.add(request);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> reportInputEnded(TaskInputEnded report) {
        jobManager.inputEnds.add(report.getAttempt());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
        server.shutdownNow();
        network.close();
        snapshotPool.shutdownNow();
        timers.shutdownNow();
    }
}

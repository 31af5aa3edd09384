package io.duraflow.taskmanager;

import io.duraflow.config.Configuration;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.state.filemerging.FileMergingManagers;
import io.duraflow.taskmanager.task.StreamEnvironment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * What a TaskManager gives its streaming tasks ({@link StreamEnvironment}): its pipelined network,
 * a pool for the asynchronous parts of snapshots, a timer thread, and the tasks' checkpoint calls
 * to the JobManager, which the {@link TaskExecutor} sends fenced with the session that deployed
 * the task. Every method may be called from any thread.
 */
final class StreamingServices implements StreamEnvironment, AutoCloseable {
    /** Sends a task's calls through the executor, with the session that owns the task. */
    interface TaskCalls {
        CompletableFuture<Void> send(AttemptId attempt, String what,
                BiFunction<JobManagerClient, String, CompletableFuture<Ack>> call);

        /** The task took its part of checkpoint {@code checkpointId} and acknowledges it now. */
        void acknowledging(AttemptId attempt, long checkpointId);

        /** The task's input ended; a leader that adopts the task later hears it again. */
        void inputEnded(TaskInputEnded report);
    }

    private final NetworkEnvironment network;
    /** Two writers: snapshots of several tasks overlap, and each is mostly file I/O. */
    private final ExecutorService snapshotPool;
    private final ScheduledExecutorService timers;
    private final TaskCalls calls;
    private final java.nio.file.Path localStateDirectory;
    /** Deletes merged checkpoint files, one at a time in order, off the task and snapshot threads. */
    private final ExecutorService fileMergingDeleter;
    private final FileMergingManagers fileMerging;

    StreamingServices(Configuration config, String taskManagerId, TaskCalls calls, java.nio.file.Path localStateDirectory) {
        this.localStateDirectory = localStateDirectory;
        this.network = new NetworkEnvironment(config, taskManagerId, System::nanoTime);
        this.calls = calls;
        AtomicInteger snapshotThreads = new AtomicInteger();
        this.snapshotPool = Executors.newFixedThreadPool(2, runnable -> daemon(runnable,
                "snapshot-" + taskManagerId + "-" + snapshotThreads.incrementAndGet()));
        this.timers = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable,
                "task-timers-" + taskManagerId));
        this.fileMergingDeleter = Executors.newSingleThreadExecutor(runnable -> daemon(runnable,
                "file-merging-deleter-" + taskManagerId));
        this.fileMerging = new FileMergingManagers(taskManagerId, fileMergingDeleter);
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    NetworkEnvironment network() {
        return network;
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
    public java.nio.file.Path localStateDirectory() {
        return localStateDirectory;
    }

    @Override
    public Executor snapshotPool() {
        return snapshotPool;
    }

    @Override
    public FileMergingManagers fileMerging() {
        return fileMerging;
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
        calls.acknowledging(request.getAttempt(), request.getCheckpointId());
        return calls.send(request.getAttempt(), "the acknowledgement of checkpoint " + request.getCheckpointId(),
                (client, session) -> client.acknowledgeCheckpoint(request.toBuilder().setJmSessionId(session).build()));
    }

    @Override
    public CompletableFuture<Void> declineCheckpoint(DeclineCheckpointRequest request) {
        return calls.send(request.getAttempt(), "the decline of checkpoint " + request.getCheckpointId(),
                (client, session) -> client.declineCheckpoint(request.toBuilder().setJmSessionId(session).build()));
    }

    @Override
    public CompletableFuture<Void> reportInputEnded(TaskInputEnded report) {
        calls.inputEnded(report);
        return calls.send(report.getAttempt(), "the end of input",
                (client, session) -> client.reportInputEnded(report.toBuilder().setJmSessionId(session).build()));
    }

    /** Stops the snapshot writers and timers and closes the network's connections. */
    @Override
    public void close() {
        snapshotPool.shutdownNow();
        timers.shutdownNow();
        fileMergingDeleter.shutdown();
        network.close();
    }
}

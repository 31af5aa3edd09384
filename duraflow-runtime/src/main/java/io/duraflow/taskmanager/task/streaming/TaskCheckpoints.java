package io.duraflow.taskmanager.task.streaming;

import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMessages;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.fs.FsPath;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.filemerging.FileMergingManagers;
import io.duraflow.state.filemerging.FileMergingSettings;
import io.duraflow.state.filemerging.SubtaskKey;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.Task;

/**
 * The checkpoints of one {@link StreamTask}: takes a snapshot of its chain (synchronous part on
 * the task thread, barrier on every output, asynchronous part on the TaskManager's snapshot
 * pool), acknowledges it with the task's {@link TaskStateSnapshot} or declines it, and cancels an
 * asynchronous part whose checkpoint was aborted (its writes delete their files). Everything but
 * the asynchronous part runs on the task thread.
 */
final class TaskCheckpoints {
    private static final Logger LOG = LoggerFactory.getLogger(TaskCheckpoints.class);

    private final TaskDeployment deployment;
    private final AttemptId attempt;
    private final String name;
    private final StreamEnvironment streaming;
    /** Null when the job has no checkpoint directory: every checkpoint is declined. */
    private final FsCheckpointStorage storage;
    /** The run's file-merging manager here, or null without checkpoint file merging. */
    private final FileMergingManagers.Lease fileMerging;
    /** Asynchronous parts running or not yet known to be complete, by checkpoint id. */
    private final TreeMap<Long, AsyncSnapshot> pending = new TreeMap<>();
    /** The newest checkpoint this task took (or declined) its part of; -1 before the first. */
    private long lastSnapshotId = -1;

    TaskCheckpoints(TaskDeployment deployment, String name, StreamEnvironment streaming, FsCheckpointStorage storage,
            FileMergingManagers.Lease fileMerging) {
        this.fileMerging = fileMerging;
        this.deployment = deployment;
        this.attempt = deployment.getAttempt();
        this.name = name;
        this.streaming = streaming;
        this.storage = storage;
    }

    /**
     * The checkpoints of a task of a job configured by {@code config}: into the job's checkpoint
     * storage (none without a checkpoint directory) and, with file merging on, through a lease on
     * the run's file-merging manager, which {@link #close} returns.
     */
    static TaskCheckpoints create(TaskDeployment deployment, String name, StreamEnvironment streaming,
            Configuration config) {
        AttemptId attempt = deployment.getAttempt();
        String checkpointDir = config.get(CheckpointingOptions.DIR);
        FsCheckpointStorage storage = checkpointDir == null ? null
                : FsCheckpointStorage.create(FsPath.parse(checkpointDir), attempt.getJobId(), config);
        FileMergingManagers.Lease fileMerging = storage != null && FileMergingSettings.isEnabled(config)
                ? streaming.fileMerging().acquire(attempt.getJobId(), deployment.getRunId(),
                        new SubtaskKey(attempt.getVertex(), attempt.getSubtask(), deployment.getParallelism()),
                        storage.fileSystem(), storage.directories(), FileMergingSettings.from(config))
                : null;
        return new TaskCheckpoints(deployment, name, streaming, storage, fileMerging);
    }

    /**
     * Before the operators restore from checkpoint {@code restoredId} (-1: none): the file-merging
     * manager takes over the merged files that {@code restored} refers to.
     */
    void restore(long restoredId, TaskStateSnapshot restored) throws IOException {
        if (fileMerging != null && restoredId > 0) {
            fileMerging.manager().restore(fileMerging.subtask(), restoredId, streamsOf(restored));
        }
    }

    /** Every stream of state {@code snapshot} refers to. */
    private static List<StreamStateHandle> streamsOf(TaskStateSnapshot snapshot) {
        List<StreamStateHandle> streams = new ArrayList<>();
        for (OperatorSubtaskState state : snapshot.operators().values()) {
            state.keyedState().forEach(handle -> streams.addAll(handle.streams()));
            state.operatorState().forEach(handle -> streams.add(handle.stream()));
        }
        return streams;
    }

    /** The task ended: returns the lease on the file-merging manager, if it holds one. */
    void close() {
        if (fileMerging != null) {
            fileMerging.close();
        }
    }

    /**
     * The barrier a trigger from the JobManager stands for: its kind (a savepoint with its
     * directory, a full checkpoint, or a checkpoint), which downstream tasks get with it.
     */
    static NetworkEvent.CheckpointBarrier barrierOf(TriggerCheckpointRequest trigger) {
        if (trigger.getKind() == io.duraflow.rpc.proto.CheckpointKind.CHECKPOINT_KIND_SAVEPOINT) {
            return new NetworkEvent.CheckpointBarrier(trigger.getCheckpointId(), trigger.getTimestampMs(),
                    NetworkEvent.CheckpointKind.SAVEPOINT, trigger.getDirectory());
        }
        return new NetworkEvent.CheckpointBarrier(trigger.getCheckpointId(), trigger.getTimestampMs(),
                trigger.getFull() ? NetworkEvent.CheckpointKind.FULL_CHECKPOINT : NetworkEvent.CheckpointKind.CHECKPOINT);
    }

    /** What the backends are asked for: a savepoint's canonical format, or a checkpoint that may (not) be incremental. */
    static SnapshotType snapshotType(NetworkEvent.CheckpointKind kind) {
        return switch (kind) {
            case CHECKPOINT -> SnapshotType.CHECKPOINT;
            case FULL_CHECKPOINT -> SnapshotType.FULL_CHECKPOINT;
            case SAVEPOINT -> SnapshotType.SAVEPOINT;
        };
    }

    /**
     * Takes this task's part of the barrier's checkpoint: the synchronous part, the same barrier on
     * every output, then the asynchronous part on the pool, which acknowledges. A savepoint's state
     * goes into the savepoint's directory (all of it: a savepoint is self-contained and can be
     * moved), a checkpoint's into {@code chk-<n>/} and {@code shared/}.
     *
     * @return false if the task declined it (downstream tasks got a cancel marker instead of the barrier, or
     *     a newer barrier already)
     */
    boolean perform(NetworkEvent.CheckpointBarrier barrier, long alignmentMs, StreamOperatorChain chain,
            Collection<PipelinedResultPartition> outputs) {
        long checkpointId = barrier.checkpointId();
        long timestampMs = barrier.timestampMs();
        if (checkpointId <= lastSnapshotId) {
            // Triggers come over separate RPCs and may arrive out of order: a periodic checkpoint
            // and the final one triggered a millisecond apart reached a task newest first, and the
            // older one's snapshot failed in the sink (ids must increase), failing the job over.
            // This task's outputs carry the newer barrier already, which subsumes this one there.
            decline(checkpointId, CheckpointFailureReason.SUBSUMED, "this task took its part of checkpoint "
                    + lastSnapshotId + " already");
            return false;
        }
        lastSnapshotId = checkpointId;
        if (storage == null) {
            decline(checkpointId, CheckpointFailureReason.DECLINED, "the job has no "
                    + CheckpointingOptions.DIR.key() + "; set it to take checkpoints");
            broadcast(outputs, new NetworkEvent.CancelCheckpointMarker(checkpointId));
            return false;
        }
        long syncStart = System.nanoTime();
        long startDelayMs = Math.max(0, System.currentTimeMillis() - timestampMs);
        if (!snapshotAvailable(checkpointId, chain)) {
            broadcast(outputs, new NetworkEvent.CancelCheckpointMarker(checkpointId));
            return false;
        }
        Map<String, RunnableFuture<OperatorSubtaskState>> futures;
        try {
            // Savepoints are never merged: they are self-contained and owned by the user.
            CheckpointStreamFactory streams = barrier.kind() == NetworkEvent.CheckpointKind.SAVEPOINT
                    ? storage.savepointStreamFactory(FsPath.parse(barrier.savepointDirectory()))
                    : fileMerging != null ? fileMerging.manager().streamFactory(fileMerging.subtask(), checkpointId)
                    : storage.streamFactory(checkpointId);
            futures = chain.snapshot(checkpointId, timestampMs, streams, snapshotType(barrier.kind()));
        } catch (Exception e) {
            LOG.warn("Task {}: the snapshot of checkpoint {} failed", name, checkpointId, e);
            decline(checkpointId, CheckpointFailureReason.DECLINED, "snapshot failed: " + Task.oneLine(e));
            broadcast(outputs, new NetworkEvent.CancelCheckpointMarker(checkpointId));
            return false;
        }
        broadcast(outputs, barrier);
        long syncMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - syncStart);
        AsyncSnapshot async = new AsyncSnapshot(checkpointId, futures, new Timing(startDelayMs, alignmentMs, syncMs),
                barrier.kind() != NetworkEvent.CheckpointKind.SAVEPOINT);
        pending.put(checkpointId, async);
        streaming.snapshotPool().execute(async);
        return true;
    }

    /** The newest checkpoint {@link #perform} was called for, or -1. */
    long lastSnapshotId() {
        return lastSnapshotId;
    }

    /**
     * Asks the chain's operators (a source's reader, a sink's writer, a keyed process function)
     * whether they can take their part now; declines the checkpoint with their reason if not:
     * a soft failure ("not now") as SNAPSHOT_UNAVAILABLE_SOFT, which never counts as a failed
     * checkpoint, a hard one as SNAPSHOT_UNAVAILABLE_HARD, which does.
     */
    private boolean snapshotAvailable(long checkpointId, StreamOperatorChain chain) {
        io.duraflow.api.checkpoint.SnapshotAvailability answer;
        try {
            answer = chain.snapshotAvailability(checkpointId);
        } catch (Exception e) {
            LOG.warn("Task {}: asking whether checkpoint {} can be taken failed", name, checkpointId, e);
            decline(checkpointId, CheckpointFailureReason.DECLINED, "isSnapshotAvailable failed: "
                    + Task.oneLine(e));
            return false;
        }
        if (answer.isAvailable()) {
            return true;
        }
        boolean soft = answer.kind() == io.duraflow.api.checkpoint.SnapshotAvailability.Kind.SOFT_FAILURE;
        LOG.info("Task {} declines checkpoint {} ({} snapshot unavailability): {}", name, checkpointId,
                soft ? "soft" : "hard", answer.message());
        decline(checkpointId, soft ? CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT
                : CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, answer.message());
        return false;
    }

    private static void broadcast(Collection<PipelinedResultPartition> outputs, NetworkEvent event) {
        for (PipelinedResultPartition output : outputs) {
            output.broadcastEvent(event);
        }
    }

    /**
     * Checkpoint {@code checkpointId} completed: it and every earlier one pending are settled.
     *
     * @param lowestRetainedId the lowest checkpoint id the job retains now; 0 for a savepoint
     */
    void completed(long checkpointId, long lowestRetainedId) {
        pending.headMap(checkpointId, true).clear();
        if (fileMerging != null && lowestRetainedId > 0) {
            fileMerging.manager().checkpointCompleted(checkpointId, lowestRetainedId);
        }
    }

    /** Checkpoint {@code checkpointId} was aborted: its asynchronous part stops and deletes what it wrote. */
    void aborted(long checkpointId) {
        AsyncSnapshot async = pending.remove(checkpointId);
        if (async != null) {
            async.cancel();
        }
        if (fileMerging != null) {
            fileMerging.manager().checkpointAborted(checkpointId);
        }
    }

    /** The task ends: every asynchronous part still running stops. */
    void cancelAll() {
        pending.values().forEach(AsyncSnapshot::cancel);
        pending.clear();
    }

    void decline(long checkpointId, CheckpointFailureReason reason, String message) {
        streaming.declineCheckpoint(DeclineCheckpointRequest.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setAttempt(attempt).setCheckpointId(checkpointId)
                .setFailure(CheckpointMessages.toProto(new CheckpointFailure(checkpointId, reason, message, name)))
                .build()).whenComplete((ok, error) -> {
                    if (error != null) {
                        LOG.warn("Task {}: declining checkpoint {} failed: {}", name, checkpointId, Rpc.message(error));
                    }
                });
    }

    /**
     * Where a task's part of a checkpoint spent its time, logged with its acknowledgement.
     *
     * @param startDelayMs from the trigger (the JobManager's timestamp; one machine's clock in a
     *     local cluster) to the start of the synchronous part: the trigger RPC and mailbox for a
     *     source, plus the barriers' way through the data queued before them and the alignment
     *     for any other task
     * @param alignmentMs from the first barrier on the task's inputs to the last
     * @param syncMs the synchronous part on the task thread, barriers sent downstream included
     */
    private record Timing(long startDelayMs, long alignmentMs, long syncMs) {
    }

    /**
     * The asynchronous part of one checkpoint, on the snapshot pool: writes every operator's state,
     * then acknowledges. Cancelling it (checkpoint aborted, task ending) stops the writes, which
     * delete their files, and no acknowledgement goes out.
     */
    private final class AsyncSnapshot implements Runnable {
        private final long checkpointId;
        private final Map<String, RunnableFuture<OperatorSubtaskState>> futures;
        private final Timing timing;
        /** A checkpoint (file merging applies), not a savepoint. */
        private final boolean checkpoint;
        /** When the task thread handed it to the snapshot pool, from System.nanoTime. */
        private final long queuedNanos = System.nanoTime();
        private volatile boolean cancelled;

        AsyncSnapshot(long checkpointId, Map<String, RunnableFuture<OperatorSubtaskState>> futures, Timing timing,
                boolean checkpoint) {
            this.checkpointId = checkpointId;
            this.futures = futures;
            this.timing = timing;
            this.checkpoint = checkpoint;
        }

        void cancel() {
            cancelled = true;
            futures.values().forEach(future -> future.cancel(true));
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            Map<String, OperatorSubtaskState> states = new HashMap<>();
            try {
                for (Map.Entry<String, RunnableFuture<OperatorSubtaskState>> entry : futures.entrySet()) {
                    entry.getValue().run();
                    states.put(entry.getKey(), entry.getValue().get());
                }
            } catch (Exception e) {
                futures.values().forEach(future -> future.cancel(true));
                if (!cancelled) {
                    LOG.warn("Task {}: writing the state of checkpoint {} failed", name, checkpointId, e);
                    decline(checkpointId, CheckpointFailureReason.ASYNC_FAILURE, "writing state failed: "
                            + Task.oneLine(e));
                }
                return;
            }
            if (cancelled) {
                return;
            }
            TaskStateSnapshot snapshot = fileMerging != null && checkpoint
                    ? new TaskStateSnapshot(states, fileMerging.manager().acknowledging(fileMerging.subtask(), checkpointId))
                    : new TaskStateSnapshot(states);
            long asyncMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            LOG.info("Task {} took its part of checkpoint {}: started {} ms after the trigger (alignment {} ms),"
                            + " synchronous part {} ms, asynchronous part {} ms (after {} ms in the pool's queue),"
                            + " {} bytes", name, checkpointId, timing.startDelayMs(), timing.alignmentMs(),
                    timing.syncMs(), asyncMs, TimeUnit.NANOSECONDS.toMillis(start - queuedNanos),
                    snapshot.stateSize());
            streaming.acknowledgeCheckpoint(AcknowledgeCheckpointRequest.newBuilder()
                    .setJmSessionId(deployment.getJmSessionId()).setAttempt(attempt).setCheckpointId(checkpointId)
                    .setState(StateHandleCodec.toProto(snapshot))
                    .setMetrics(CheckpointMessages.toProto(new CheckpointMetrics(timing.alignmentMs(), timing.syncMs(), asyncMs,
                            snapshot.stateSize())))
                    .build()).whenComplete((ok, error) -> {
                        if (error != null) {
                            LOG.warn("Task {}: acknowledging checkpoint {} failed: {}", name, checkpointId,
                                    Rpc.message(error));
                        }
                    });
        }
    }
}

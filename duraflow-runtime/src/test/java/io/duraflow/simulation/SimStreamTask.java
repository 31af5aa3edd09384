package io.duraflow.simulation;

import com.google.protobuf.ByteString;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.simulation.SimPipelines.Barrier;
import io.duraflow.simulation.SimPipelines.Data;
import io.duraflow.simulation.SimPipelines.End;
import io.duraflow.simulation.SimPipelines.Message;
import io.duraflow.simulation.SimPipelines.Partition;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.taskmanager.TaskExecutorServices;
import io.duraflow.taskmanager.task.TaskEnvironment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A streaming task of the simulation (source, or keyed sum), in place of the real one. A source
 * subtask asks for splits and emits {@link #RECORDS_PER_SPLIT} records of each into the pipelined
 * channels of its consumers; on a checkpoint trigger (in the order of its operator events) it
 * acknowledges its splits and progress as its state and sends a barrier down every channel. A
 * sum subtask counts and sums what it reads, aligns the barriers of all its channels, and
 * acknowledges its count and sum. Both restore what their deployment's checkpoint holds. Once
 * its input ended a task reports so and finishes when a checkpoint triggered after that
 * completes; a sum subtask then collects its count and sum. Killing the TaskManager breaks the
 * channels; a consumer of a broken channel fails, naming the producer's TaskManager if it died.
 */
final class SimStreamTask implements TaskExecutorServices.RunningTask {
    static final int RECORDS_PER_SPLIT = 200;
    static final String RESULT = "sums";

    private final SimCluster cluster;
    private final SimTaskManager taskManager;
    private final TaskDeployment deployment;
    private final TaskEnvironment environment;
    private final AttemptId attempt;
    private final JobVertex vertex;
    private final String operatorUid;
    private final SimMailbox thread;
    private final EventOrder<Object> events;
    private boolean cancelled;
    private boolean ended;

    // source state
    private final List<ByteString> splits = new ArrayList<>();
    private final List<Integer> emitted = new ArrayList<>();
    private boolean requested;
    private boolean noMoreSplits;
    private final List<Partition> outputs = new ArrayList<>();
    private final List<String> outputIds = new ArrayList<>();

    // sum state
    private long count;
    private long sum;
    private final List<Channel> channels = new ArrayList<>();
    private final Set<Long> acknowledged = new HashSet<>();
    /** A direct trigger that came before the end of this sum task's input, or 0. */
    private long deferredTrigger;

    // both
    private boolean inputEnded;
    /** The first checkpoint triggered after the input ended; completing it finishes the task. */
    private long finalCheckpointId = Long.MAX_VALUE;

    private static final class Channel {
        final PartitionLocation producer;
        final int subpartition;
        Partition partition;
        boolean ended;
        /** The barrier this channel delivered and waits with, or 0. */
        long blockedAt;

        Channel(PartitionLocation producer, int subpartition) {
            this.producer = producer;
            this.subpartition = subpartition;
        }
    }

    SimStreamTask(SimCluster cluster, SimTaskManager taskManager, TaskDeployment deployment, JobGraph graph,
            TaskEnvironment environment) {
        this.cluster = cluster;
        this.taskManager = taskManager;
        this.deployment = deployment;
        this.environment = environment;
        this.attempt = deployment.getAttempt();
        this.vertex = graph.vertex(attempt.getVertex());
        this.operatorUid = graph.uid(vertex.head());
        this.thread = taskManager.tasks;
        this.events = new EventOrder<>(message -> thread.execute(() -> applyInOrder(message)));
        for (InputGate gate : deployment.getInputsList()) {
            for (PartitionLocation producer : gate.getProducersList()) {
                for (int sub = gate.getSubpartitionFrom(); sub < gate.getSubpartitionTo(); sub++) {
                    channels.add(new Channel(producer, sub));
                }
            }
        }
    }

    private long pause() {
        return 5 + cluster.random().nextInt(40);
    }

    @Override
    public void run() {
        if (deployment.hasRestore()) {
            restore(StateHandleCodec.fromProto(deployment.getRestore().getState()));
        }
        cluster.invariants().streamTaskStarted(this);
        environment.reportState(update(TaskState.RUNNING).build());
        for (OutputSpec output : deployment.getOutputsList()) {
            outputs.add(cluster.pipelines().create(taskManager, output.getPartitionId(), output.getSubpartitions()));
            outputIds.add(output.getPartitionId());
        }
        thread.schedule(this::work, pause());
    }

    AttemptId attempt() {
        return attempt;
    }

    SimTaskManager taskManager() {
        return taskManager;
    }

    boolean ended() {
        return ended;
    }

    // ------------------------------------------------------------------ the work loop

    private void work() {
        if (ended) {
            return;
        }
        if (vertex.isSource()) {
            emit();
        } else if (!read()) {
            return;
        }
        thread.schedule(this::work, pause());
    }

    private void emit() {
        for (int i = 0; i < splits.size(); i++) {
            int next = emitted.get(i);
            if (next < RECORDS_PER_SPLIT) {
                long value = value(splits.get(i), next);
                for (Partition output : outputs) {
                    output.add((int) Math.floorMod(value, (long) output.channels.size()), new Data(value));
                }
                emitted.set(i, next + 1);
                return;
            }
        }
        if (noMoreSplits && !inputEnded) {
            outputs.forEach(output -> output.broadcast(new End()));
            endInput();
        } else if (!noMoreSplits && !requested) {
            requested = true;
            environment.sendOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(attempt)
                    .setNodeId(vertex.head().id())
                    .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
        }
    }

    /** The value of record {@code index} of a split: what the sums add up. */
    static long value(ByteString split, int index) {
        return (split.hashCode() & 0xffffL) * RECORDS_PER_SPLIT + index;
    }

    /** Reads a few messages of the channels; false if the task failed. */
    private boolean read() {
        for (Channel channel : channels) {
            if (channel.partition == null) {
                channel.partition = cluster.pipelines().find(channel.producer.getTmId(),
                        channel.producer.getPartitionId());
                if (channel.partition == null) {
                    if (cluster.liveTaskManager(channel.producer.getTmId()).isEmpty()) {
                        return unreachable(channel);
                    }
                    continue;  // the producer has not started yet: connect again later
                }
            }
            if (channel.partition.broken) {
                return cluster.liveTaskManager(channel.producer.getTmId()).isEmpty() ? unreachable(channel)
                        : fail(update(TaskState.FAILED).setFailure("the stream from "
                                + channel.producer.getPartitionId() + " was closed by its producer"));
            }
            for (int i = 0; i < 3 && channel.blockedAt == 0; i++) {
                Message message = channel.partition.channels.get(channel.subpartition).poll();
                if (message == null) {
                    break;
                } else if (message instanceof Data data) {
                    count++;
                    sum += data.value();
                } else if (message instanceof Barrier barrier) {
                    if (!acknowledged.contains(barrier.checkpointId())) {
                        channel.blockedAt = barrier.checkpointId();
                        aligned(barrier.checkpointId());
                    }
                } else if (message instanceof End) {
                    channel.ended = true;
                    channels.stream().filter(c -> c.blockedAt != 0).findFirst().ifPresent(c -> aligned(c.blockedAt));
                }
            }
        }
        if (!inputEnded && channels.stream().allMatch(c -> c.ended)) {
            endInput();
            if (deferredTrigger > 0) {
                triggered(deferredTrigger);
            }
        }
        return true;
    }

    private boolean unreachable(Channel channel) {
        return fail(update(TaskState.FAILED).setFailure("the stream from " + channel.producer.getPartitionId()
                + " broke: TaskManager " + channel.producer.getTmId() + " is unreachable")
                .setUnreachableTmId(channel.producer.getTmId()).setUnreachableTmAddress(channel.producer.getTmAddress()));
    }

    /** Every channel delivered the barrier: the snapshot is taken and the channels go on. */
    private void aligned(long checkpointId) {
        // A channel whose producer's output ended delivers no more barriers (a finished producer
        // takes no part in later checkpoints), as the real input gate counts it aligned.
        if (channels.stream().allMatch(c -> c.blockedAt == checkpointId || (c.ended && c.blockedAt == 0))) {
            acknowledge(checkpointId);
            channels.forEach(c -> c.blockedAt = 0);
        }
    }

    private void endInput() {
        inputEnded = true;
        environment.streaming().reportInputEnded(TaskInputEnded.newBuilder().setAttempt(attempt).build());
    }

    // ------------------------------------------------------------------ events, checkpoints

    @Override
    public void deliver(long sequence, OperatorEvent event) {
        events.accept(sequence, event);
    }

    @Override
    public void triggerCheckpoint(TriggerCheckpointRequest request) {
        events.accept(request.getEventSequence(), request);
    }

    private void applyInOrder(Object message) {
        if (ended) {
            return;
        }
        if (message instanceof TriggerCheckpointRequest trigger) {
            triggered(trigger.getCheckpointId());
        } else if (message instanceof OperatorEvent event) {
            if (event.hasAddSplits()) {
                for (ByteString split : event.getAddSplits().getSplitsList()) {
                    splits.add(split);
                    emitted.add(0);
                }
                cluster.invariants().splitsRead(attempt, event.getAddSplits().getSplitsList());
                requested = false;
            } else if (event.hasNoMoreSplits()) {
                noMoreSplits = true;
            }
        }
    }

    /**
     * Triggered directly: a source, or a task whose producers all finished. A task that has not
     * read the end of its input yet takes the snapshot once it has, as the real one does.
     */
    private void triggered(long checkpointId) {
        if (!vertex.isSource() && !inputEnded) {
            deferredTrigger = Math.max(deferredTrigger, checkpointId);
            return;
        }
        if (inputEnded && finalCheckpointId == Long.MAX_VALUE) {
            finalCheckpointId = checkpointId;
        }
        acknowledge(checkpointId);
        if (vertex.isSource()) {
            outputs.forEach(output -> output.broadcast(new Barrier(checkpointId)));
        } else {
            channels.forEach(c -> {
                if (c.blockedAt == checkpointId) {
                    c.blockedAt = 0;
                }
            });
        }
    }

    private void acknowledge(long checkpointId) {
        if (!acknowledged.add(checkpointId)) {
            return;
        }
        environment.streaming().acknowledgeCheckpoint(AcknowledgeCheckpointRequest.newBuilder().setAttempt(attempt)
                .setCheckpointId(checkpointId).setState(StateHandleCodec.toProto(snapshot())).build());
    }

    @Override
    public void notifyCheckpoint(CheckpointNotification notification) {
        if (notification.getCompleted()) {
            cluster.invariants().checkpointCompleted(attempt.getJobId(), notification.getCheckpointId());
        }
        thread.execute(() -> {
            if (!ended && notification.getCompleted() && notification.getCheckpointId() >= finalCheckpointId) {
                finish();
            }
        });
    }

    private void finish() {
        TaskStateUpdate.Builder finished = update(TaskState.FINISHED);
        if (!vertex.isSource()) {
            finished.addCollected(CollectedResult.newBuilder().setName(RESULT).setSubtask(attempt.getSubtask())
                    .setRecords(1).setData(ByteString.copyFrom(record(count, sum))));
        }
        end(finished);
    }

    // ------------------------------------------------------------------ state

    private TaskStateSnapshot snapshot() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(splits.size());
            for (int i = 0; i < splits.size(); i++) {
                out.writeInt(splits.get(i).size());
                out.write(splits.get(i).toByteArray());
                out.writeInt(emitted.get(i));
            }
            out.writeBoolean(noMoreSplits);
            out.writeLong(count);
            out.writeLong(sum);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        OperatorStateHandle handle = new OperatorStateHandle(Map.of("state", new OperatorStateHandle.StateList(
                OperatorStateHandle.Distribution.SPLIT, new long[] {0})), new InlineStateHandle(bytes.toByteArray()));
        return new TaskStateSnapshot(Map.of(operatorUid, new OperatorSubtaskState(List.of(), List.of(handle))));
    }

    private void restore(TaskStateSnapshot snapshot) {
        OperatorSubtaskState state = snapshot.operators().get(operatorUid);
        if (state == null || state.operatorState().isEmpty()) {
            return;
        }
        byte[] bytes = ((InlineStateHandle) state.operatorState().get(0).stream()).bytes();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                byte[] split = new byte[in.readInt()];
                in.readFully(split);
                splits.add(ByteString.copyFrom(split));
                emitted.add(in.readInt());
            }
            noMoreSplits = in.readBoolean();
            this.count = in.readLong();
            this.sum = in.readLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] record(long count, long sum) {
        byte[] text = (count + "," + sum).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] data = new byte[text.length + 1];
        data[0] = (byte) text.length;
        System.arraycopy(text, 0, data, 1, text.length);
        return data;
    }

    /** {count, sum} from a collected record. */
    static long[] parse(byte[] data) {
        String[] parts = new String(data, 1, data[0], java.nio.charset.StandardCharsets.UTF_8).split(",");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    }

    // ------------------------------------------------------------------ the end

    private boolean fail(TaskStateUpdate.Builder failed) {
        cluster.trace().add(taskManager.tmId() + ": " + Rpc.describe(attempt) + " fails: " + failed.getFailure());
        end(failed);
        return false;
    }

    @Override
    public void cancel() {
        if (!ended && !cancelled) {
            cancelled = true;
            thread.execute(() -> end(update(TaskState.CANCELED)));
        }
    }

    private void end(TaskStateUpdate.Builder report) {
        if (ended) {
            return;
        }
        ended = true;
        cluster.invariants().taskEnded(taskManager, attempt);
        if (report.getState() != TaskState.FINISHED) {
            outputIds.forEach(id -> cluster.pipelines().release(taskManager, id));
        }
        cluster.trace().add(taskManager.tmId() + ": " + Rpc.describe(attempt) + " " + report.getState());
        environment.releaseSlot(attempt);
        environment.reportState(report.build());
    }

    private TaskStateUpdate.Builder update(TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setTmId(environment.taskManagerId()).setAttempt(attempt).setState(state);
    }
}

package io.duraflow.simulation;

import com.google.protobuf.ByteString;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.exchange.PartitionSummary;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.duraflow.taskmanager.SimulatedTaskExecutors;
import io.duraflow.taskmanager.TaskExecutorServices;
import io.duraflow.taskmanager.task.TaskEnvironment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch task of the simulation, in place of the real one (whose thread the simulation cannot
 * step). A source subtask asks its enumerator for splits one at a time, then writes one record
 * per split it read into a real partition file of each output (on its TaskManager's disk) and
 * reports FINISHED with the sizes; a consumer subtask reads the records of its subpartitions from
 * every producer's partition where its deployment says it is, from the producer's TaskManager
 * (failing with the missing partition or the unreachable TaskManager, as a real fetch does), and
 * reports FINISHED with the count as its collected result. Each step takes a seeded time.
 */
final class SimBatchTask implements TaskExecutorServices.RunningTask {
    /** The name of what the consumers collect; the word-count job collects its counts under it. */
    static final String RESULT = "counts";

    private final SimCluster cluster;
    private final SimTaskManager taskManager;
    private final TaskDeployment deployment;
    private final JobGraph graph;
    private final TaskEnvironment environment;
    private final AttemptId attempt;
    private final JobVertex vertex;
    private final SimMailbox thread;
    private final EventOrder<OperatorEvent> events;
    private final List<ByteString> splits = new ArrayList<>();
    private boolean cancelled;
    private boolean ended;

    SimBatchTask(SimCluster cluster, SimTaskManager taskManager, TaskDeployment deployment, JobGraph graph,
            TaskEnvironment environment) {
        this.cluster = cluster;
        this.taskManager = taskManager;
        this.deployment = deployment;
        this.graph = graph;
        this.environment = environment;
        this.attempt = deployment.getAttempt();
        this.vertex = graph.vertex(attempt.getVertex());
        this.thread = taskManager.tasks;
        this.events = new EventOrder<>(event -> thread.execute(() -> apply(event)));
    }

    private long pause() {
        return 20 + cluster.random().nextInt(280);
    }

    @Override
    public void run() {
        environment.reportState(update(TaskState.RUNNING).build());
        thread.schedule(vertex.isSource() ? this::requestSplit : this::consume, pause());
    }

    private void requestSplit() {
        if (ended) {
            return;
        }
        environment.sendOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(attempt)
                .setNodeId(vertex.head().id())
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
    }

    @Override
    public void deliver(long sequence, OperatorEvent event) {
        events.accept(sequence, event);
    }

    private void apply(OperatorEvent event) {
        if (ended) {
            return;
        }
        if (event.hasAddSplits()) {
            splits.addAll(event.getAddSplits().getSplitsList());
            cluster.invariants().splitsRead(attempt, event.getAddSplits().getSplitsList());
            thread.schedule(this::requestSplit, pause());
        } else if (event.hasNoMoreSplits()) {
            thread.schedule(this::produce, pause());
        }
    }

    /** A source read its splits: one record per split into each output, then FINISHED. */
    private void produce() {
        if (ended) {
            return;
        }
        TaskStateUpdate.Builder finished = update(TaskState.FINISHED).setRecordsIn(splits.size())
                .setRecordsOut(splits.size());
        try {
            for (OutputSpec output : deployment.getOutputsList()) {
                ResultPartitionWriter writer = environment.createPartition(attempt.getJobId(), output.getPartitionId(),
                        output.getSubpartitions());
                for (ByteString split : splits) {
                    byte[] record = split.toByteArray();
                    writer.write(Math.floorMod(split.hashCode(), output.getSubpartitions()), record, 0, record.length);
                }
                PartitionSummary summary = writer.finish();
                environment.publish(attempt.getJobId(), output.getPartitionId());
                SubpartitionSizes.Builder sizes = SubpartitionSizes.newBuilder().setEdgeId(output.getEdgeId())
                        .setPartitionId(output.getPartitionId()).setRecords(splits.size());
                for (long bytes : summary.subpartitionBytes()) {
                    sizes.addBytes(bytes);
                }
                finished.addOutputs(sizes);
            }
        } catch (Exception e) {
            fail(update(TaskState.FAILED).setFailure("cannot write its output: " + e));
            return;
        }
        end(finished);
    }

    /** A consumer reads its subpartitions of every producer's partition, then FINISHED with the count. */
    private void consume() {
        if (ended) {
            return;
        }
        long records = 0;
        for (InputGate gate : deployment.getInputsList()) {
            for (PartitionLocation producer : gate.getProducersList()) {
                SimTaskManager holder = cluster.liveTaskManager(producer.getTmId()).orElse(null);
                if (holder == null) {
                    fail(update(TaskState.FAILED).setFailure("cannot fetch partition " + producer.getPartitionId()
                            + ": TaskManager " + producer.getTmId() + " is unreachable")
                            .setUnreachableTmId(producer.getTmId()).setUnreachableTmAddress(producer.getTmAddress()));
                    return;
                }
                try (PartitionFileReader reader = SimulatedTaskExecutors.openPartition(holder.executor(),
                        producer.getPartitionId())) {
                    for (int sub = gate.getSubpartitionFrom(); sub < gate.getSubpartitionTo(); sub++) {
                        records += reader.records(sub);
                    }
                } catch (PartitionNotFoundException e) {
                    fail(update(TaskState.FAILED).setFailure("partition " + producer.getPartitionId() + " is gone: "
                            + e.reason()).setMissingPartitionId(producer.getPartitionId()));
                    return;
                } catch (Exception e) {
                    fail(update(TaskState.FAILED).setFailure("cannot read partition " + producer.getPartitionId()
                            + ": " + e));
                    return;
                }
            }
        }
        byte[] count = Long.toString(records).getBytes(StandardCharsets.UTF_8);
        byte[] data = new byte[count.length + 1];
        data[0] = (byte) count.length;
        System.arraycopy(count, 0, data, 1, count.length);
        end(update(TaskState.FINISHED).setRecordsIn(records).setRecordsOut(1).addCollected(CollectedResult.newBuilder()
                .setName(RESULT).setSubtask(attempt.getSubtask()).setRecords(1).setData(ByteString.copyFrom(data))));
    }

    private void fail(TaskStateUpdate.Builder failed) {
        cluster.trace().add(taskManager.tmId() + ": " + Rpc.describe(attempt) + " fails: " + failed.getFailure());
        end(failed);
    }

    @Override
    public void cancel() {
        if (!ended && !cancelled) {
            cancelled = true;
            thread.execute(() -> end(update(TaskState.CANCELED)));
        }
    }

    /** As the real task: leaves its slot, then reports how it ended, once. */
    private void end(TaskStateUpdate.Builder report) {
        if (ended) {
            return;
        }
        ended = true;
        cluster.invariants().taskEnded(taskManager, attempt);
        cluster.trace().add(taskManager.tmId() + ": " + Rpc.describe(attempt) + " " + report.getState());
        environment.releaseSlot(attempt);
        environment.reportState(report.build());
    }

    private TaskStateUpdate.Builder update(TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setTmId(environment.taskManagerId()).setAttempt(attempt).setState(state);
    }

    /** The count a consumer collected, from its collected data. */
    static long count(byte[] data) {
        return Long.parseLong(new String(data, 1, data[0], StandardCharsets.UTF_8));
    }
}

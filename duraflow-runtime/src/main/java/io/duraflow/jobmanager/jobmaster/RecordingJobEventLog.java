package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;

import com.google.protobuf.ByteString;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.RunStarted;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.SplitsReturned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Turns a job master's happenings into {@link JobEvent}s for a {@link JobEventWriter}, or for
 * any other sink of events (a list in a test).
 */
public final class RecordingJobEventLog implements JobEventLog {
    private final Consumer<JobEvent> sink;
    private final Runnable flush;
    private final LongSupplier clock;

    public RecordingJobEventLog(JobEventWriter writer, LongSupplier clock) {
        this(writer::append, writer::flush, clock);
    }

    /**
     * @param sink  takes each event, in order; must not block
     * @param flush asks the sink to make what it took durable soon (after a finish); must not block
     * @param clock stamps the events, epoch milliseconds
     */
    public RecordingJobEventLog(Consumer<JobEvent> sink, Runnable flush, LongSupplier clock) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.flush = Objects.requireNonNull(flush, "flush");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private JobEvent.Builder event() {
        return JobEvent.newBuilder().setTimestampMs(clock.getAsLong());
    }

    @Override
    public void vertexInitialized(int vertex, int parallelism, int[] rangeBounds) {
        VertexInitialized.Builder initialized = VertexInitialized.newBuilder().setVertex(vertex).setParallelism(parallelism);
        for (int bound : rangeBounds) {
            initialized.addRangeBounds(bound);
        }
        sink.accept(event().setVertexInitialized(initialized).build());
    }

    @Override
    public void executionFinished(Execution execution, TaskStateUpdate update) {
        sink.accept(event().setExecutionFinished(finishedEvent(execution.vertex(), execution.subtask(),
                execution.attempt(), execution.tmId(), execution.tmAddress(), update)).build());
        // A finish is what recovery saves work with: write it now rather than at the next interval.
        flush.run();
    }

    /**
     * The {@code ExecutionFinished} of an attempt that ran on {@code tmId} and reported {@code
     * update}: its partitions, counters and collected records. The one builder of this event,
     * also for a finish that a TaskManager carried to a new leader.
     */
    public static io.duraflow.jobmanager.events.proto.ExecutionFinished finishedEvent(int vertex, int subtask,
            int attempt, String tmId, String tmAddress, TaskStateUpdate update) {
        var finished = io.duraflow.jobmanager.events.proto.ExecutionFinished.newBuilder()
                .setVertex(vertex).setSubtask(subtask).setAttempt(attempt)
                .setTmId(tmId).setTmAddress(tmAddress).setRecordsIn(update.getRecordsIn())
                .setRecordsOut(update.getRecordsOut()).putAllCounters(update.getCountersMap());
        for (SubpartitionSizes sizes : update.getOutputsList()) {
            finished.addPartitions(ProducedPartition.newBuilder().setEdgeId(sizes.getEdgeId())
                    .setPartitionId(sizes.getPartitionId()).addAllSubpartitionBytes(sizes.getBytesList())
                    .setRecords(sizes.getRecords()));
        }
        for (CollectedResult collected : update.getCollectedList()) {
            finished.addCollected(Collected.newBuilder().setName(collected.getName()).setSubtask(collected.getSubtask())
                    .setRecords(collected.getRecords()).setData(collected.getData()));
        }
        return finished.build();
    }

    @Override
    public void runStarted(String reason) {
        sink.accept(event().setRunStarted(RunStarted.newBuilder().setReason(reason)).build());
        flush.run();
    }

    @Override
    public void executionsReset(List<Execution> executions, String reason) {
        ExecutionsReset.Builder reset = ExecutionsReset.newBuilder().setReason(reason);
        for (Execution execution : executions) {
            reset.addExecutions(ExecutionRef.newBuilder().setVertex(execution.vertex()).setSubtask(execution.subtask())
                    .setNewAttempt(execution.attempt()));
        }
        sink.accept(event().setExecutionsReset(reset).build());
    }

    @Override
    public void executionsDeployed(String tmId, List<Execution> executions) {
        io.duraflow.jobmanager.events.proto.ExecutionsDeployed.Builder deployed =
                io.duraflow.jobmanager.events.proto.ExecutionsDeployed.newBuilder().setTmId(tmId);
        for (Execution execution : executions) {
            deployed.addExecutions(ExecutionRef.newBuilder().setVertex(execution.vertex())
                    .setSubtask(execution.subtask()).setNewAttempt(execution.attempt()));
        }
        sink.accept(event().setExecutionsDeployed(deployed).build());
    }

    @Override
    public void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits) {
        SplitsAssigned.Builder assigned = SplitsAssigned.newBuilder().setNodeId(nodeId).setSubtask(subtask)
                .setAttempt(attempt);
        for (byte[] split : splits) {
            assigned.addSplits(ByteString.copyFrom(split));
        }
        sink.accept(event().setSplitsAssigned(assigned).build());
    }

    @Override
    public void splitsReturned(int nodeId, int subtask, int count) {
        sink.accept(event().setSplitsReturned(SplitsReturned.newBuilder().setNodeId(nodeId).setSubtask(subtask)
                .setCount(count)).build());
    }

    /** Null: the enumerator cannot snapshot, only that is recorded. */
    @Override
    public void coordinatorState(int nodeId, byte[] state) {
        CoordinatorState.Builder coordinator = CoordinatorState.newBuilder().setNodeId(nodeId).setCheckpointId(-1);
        if (state == null) {
            coordinator.setSnapshotUnsupported(true);
        } else {
            coordinator.setState(ByteString.copyFrom(state));
        }
        sink.accept(event().setCoordinatorState(coordinator).build());
        // A state logged after an assignment is what lets a new leader adopt the reader that got
        // the splits: write it now rather than at the next interval.
        flush.run();
    }
}

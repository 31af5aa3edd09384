package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.exchange.pipelined.NetworkBuffer;
import io.duraflow.exchange.pipelined.NetworkEnvironment.ChannelLocation;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.TaskCounters;
import java.util.ArrayList;
import java.util.List;

/**
 * What a streaming task does with what its pipelined input gate delivers: a buffer's records are
 * read in batches of up to {@link #MAX_BATCH}, each batch handed to the head operator's {@link
 * HeadOperator#prefetch} before its records are processed in order; the end of an input ends the
 * head's input; the gate's watermark goes to the head (which forwards it through the chain);
 * aligned barriers, aborted alignments and the channels' idleness go to the task's {@link GateReports}.
 * Task thread only.
 */
final class PipelinedInputHandler implements PipelinedInputGate.Handler {
    /**
     * Records of a buffer read ahead and handed to the head operator's {@link HeadOperator#prefetch}
     * together before each is processed (TypeSerializer: a read never changes an earlier record).
     */
    static final int MAX_BATCH = 16;

    /** What the task does when the gate reports on a checkpoint, or on its channels' idleness. */
    interface GateReports {
        /** Every input delivered the barrier: the task takes its snapshot. */
        void barrierAligned(NetworkEvent.CheckpointBarrier barrier) throws Exception;

        /** The gate gave up aligning {@code checkpointId}. */
        void alignmentAborted(long checkpointId);

        /** Every input channel is idle ({@code idle}: the task's consumers must not wait for its watermark), or one is active again. */
        void watermarkStatus(boolean idle);
    }

    private final HeadOperator head;
    /** The record type of each input, by input index. */
    private final TypeSerializer<Object>[] wireTypes;
    private final TaskCounters counters;
    private final GateReports reports;
    private final DataReader frame = new DataReader();
    private final DataReader record = new DataReader();
    private final Object[] batch = new Object[MAX_BATCH];
    private final int[] batchBytes = new int[MAX_BATCH];
    /** Where each record's timestamp goes before it is processed; null when records carry none. */
    private final RecordTime time;
    private final long[] batchTimestamps = new long[MAX_BATCH];

    /** {@code time}: records on the wire start with their timestamp (a job with event time), else null. */
    PipelinedInputHandler(HeadOperator head, TypeSerializer<Object>[] wireTypes, RecordTime time, TaskCounters counters,
            GateReports reports) {
        this.head = head;
        this.time = time;
        this.wireTypes = wireTypes;
        this.counters = counters;
        this.reports = reports;
    }

    /** The record type of each of the vertex's inputs, by input index, from the deployment's input gates. */
    @SuppressWarnings("unchecked")
    static TypeSerializer<Object>[] wireTypes(JobGraph graph, JobVertex vertex, TaskDeployment deployment) {
        TypeSerializer<Object>[] wireTypes = new TypeSerializer[vertex.inputs().size()];
        for (io.duraflow.rpc.proto.InputGate input : deployment.getInputsList()) {
            ExchangeEdge edge = graph.edge(input.getEdgeId());
            wireTypes[edge.inputIndex()] = (TypeSerializer<Object>) edge.producerNode().outputType();
        }
        return wireTypes;
    }

    /**
     * The channels a task reads, from its deployment's input gates: consumer subtask i reads
     * subpartition i of every producer unless the deployment gives a range.
     */
    static List<ChannelLocation> channels(JobGraph graph, TaskDeployment deployment, int subtask) {
        List<ChannelLocation> channels = new ArrayList<>();
        for (io.duraflow.rpc.proto.InputGate input : deployment.getInputsList()) {
            ExchangeEdge edge = graph.edge(input.getEdgeId());
            int from = input.getSubpartitionTo() > input.getSubpartitionFrom() ? input.getSubpartitionFrom() : subtask;
            int to = input.getSubpartitionTo() > input.getSubpartitionFrom() ? input.getSubpartitionTo() : from + 1;
            for (PartitionLocation producer : input.getProducersList()) {
                for (int subpartition = from; subpartition < to; subpartition++) {
                    channels.add(new ChannelLocation(edge.inputIndex(), producer.getTmId(), producer.getTmAddress(),
                            producer.getPartitionId(), subpartition));
                }
            }
        }
        return channels;
    }

    @Override
    public void onBuffer(int input, NetworkBuffer buffer) throws Exception {
        try {
            TypeSerializer<Object> wireType = wireTypes[input];
            byte[] memory = buffer.memory();
            frame.reset(memory, 0, buffer.size());
            while (frame.hasRemaining()) {
                int count = 0;
                while (count < MAX_BATCH && frame.hasRemaining()) {
                    int length = frame.readVarInt();
                    int start = frame.position();
                    record.reset(memory, start, length);
                    frame.skip(length);
                    if (time != null) {
                        batchTimestamps[count] = record.readLong();
                    }
                    batch[count] = wireType.read(record);
                    batchBytes[count++] = length;
                }
                head.prefetch(input, batch, count);
                for (int i = 0; i < count; i++) {
                    counters.recordsIn++;
                    if (time != null) {
                        time.timestamp = batchTimestamps[i];
                    }
                    head.process(input, batch[i], batchBytes[i]);
                }
            }
        } finally {
            java.util.Arrays.fill(batch, null);
            buffer.recycle();
        }
    }

    @Override
    public void onEndOfInput(int input) throws Exception {
        head.endInput(input);
    }

    @Override
    public void onWatermark(long watermark) throws Exception {
        head.processWatermark(watermark);
    }

    @Override
    public void onWatermarkStatus(boolean idle) {
        reports.watermarkStatus(idle);
    }

    @Override
    public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) throws Exception {
        reports.barrierAligned(barrier);
    }

    @Override
    public void onCheckpointAborted(long checkpointId, String reason) {
        reports.alignmentAborted(checkpointId);
    }
}

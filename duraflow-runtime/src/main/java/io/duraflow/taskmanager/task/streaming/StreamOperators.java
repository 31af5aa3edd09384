package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.dag.KeyedAggregation;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.sink.CommittingSinkDriver;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.TwoPhaseCommittingSink;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.util.Murmur;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.ExchangeOutputs;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.StreamOperator;
import io.duraflow.taskmanager.task.TaskCounters;

/**
 * The operators that exist only in streaming mode, or behave differently there: each keeps what
 * a restore needs in its operator or keyed state, so that a task restored from a checkpoint
 * continues exactly where the checkpoint was taken.
 */
final class StreamOperators {
    private StreamOperators() {}

    /** State names; part of the checkpoint format of these operators, so never renamed. */
    static final String SPLITS_STATE = "source-splits";
    static final String COMMITTABLES_STATE = "sink-committables";
    static final String JOB_LINEAGE_STATE = "sink-job-lineage";
    static final String COLLECTED_STATE = "collected";
    static final String ROLLING_STATE = "rolling-aggregate";

    /**
     * Keeps a source reader's splits in SPLIT operator list state: the restored splits (this
     * subtask's share after redistribution) go to the reader before it starts, and every snapshot
     * replaces them with the reader's {@link SourceReader#snapshotState}.
     */
    static final class SourceOperator implements StreamOperator {
        private final SplitSerializer<SourceSplit> splitSerializer;
        private SourceReader<Object, SourceSplit> reader;
        private ListState<byte[]> splits;
        private final List<SourceSplit> restored = new ArrayList<>();

        SourceOperator(SplitSerializer<SourceSplit> splitSerializer) {
            this.splitSerializer = splitSerializer;
        }

        @Override
        public void initializeState(StateInitializationContext context) {
            splits = context.operatorState().getListState(new ListStateDescriptor<>(SPLITS_STATE, Types.BYTES));
            for (byte[] bytes : splits.get()) {
                restored.add(splitSerializer.fromBytes(bytes));
            }
        }

        SplitSerializer<SourceSplit> splitSerializer() {
            return splitSerializer;
        }

        /** Hands the restored splits to a reader that was just created, before it starts. */
        void attach(SourceReader<Object, SourceSplit> reader) {
            this.reader = reader;
            if (!restored.isEmpty()) {
                reader.addSplits(List.copyOf(restored));
                restored.clear();
            }
        }

        @Override
        public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
            return reader.isSnapshotAvailable(checkpointId);
        }

        @Override
        public void snapshotState(long checkpointId) throws Exception {
            List<byte[]> state = new ArrayList<>();
            for (SourceSplit split : reader.snapshotState(checkpointId)) {
                state.add(splitSerializer.toBytes(split));
            }
            splits.update(state);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
        }
    }

    /**
     * A keyed reduce or aggregate in streaming mode, as Flink does it: one accumulator per key in a
     * ValueState, and the updated result emitted for every record (there is no end to wait for).
     */
    static final class RollingAggregate implements HeadOperator {
        private final KeyedAggregation<Object, Object, Object, Object> aggregation;
        private final TypeSerializer<Object> accumulatorType;
        private final Downstream out;
        private final KeyPrefetch keyPrefetch;
        private KeyedStateBackend<Object> backend;
        private ValueState<Object> accumulator;

        RollingAggregate(KeySelector<Object, Object> keySelector, KeyedAggregation<Object, Object, Object, Object> aggregation,
                TypeSerializer<Object> accumulatorType, Downstream out) {
            this.aggregation = aggregation;
            this.accumulatorType = accumulatorType;
            this.out = out;
            this.keyPrefetch = new KeyPrefetch(keySelector);
        }

        @Override
        public void initializeState(StateInitializationContext context) {
            backend = context.keyedState();
            accumulator = backend.getState(new ValueStateDescriptor<>(ROLLING_STATE, accumulatorType));
        }

        @Override
        public void prefetch(int input, Object[] records, int count) {
            keyPrefetch.prefetch(backend, records, count);
        }

        @Override
        public void process(int input, Object record, int serializedBytes) throws Exception {
            Object key = ExchangeOutputs.requireKey(keyPrefetch.keyOf(record), "keyed aggregation");
            backend.setCurrentKey(key);
            Object current = accumulator.value();
            Object updated = current == null ? aggregation.first(record) : aggregation.add(current, record);
            accumulator.update(updated);
            out.push(aggregation.result(key, updated));
        }

        @Override
        public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
            return aggregation.isSnapshotAvailable(checkpointId);
        }

        @Override
        public void processWatermark(long watermark) throws Exception {
            out.processWatermark(watermark);
        }

        @Override
        public void endInput(int input) {}
    }

    /**
     * A {@link TwoPhaseCommittingSink} through its {@link CommittingSinkDriver}: committables in
     * UNION operator list state, committed when their checkpoint completes (and on restore), and
     * the driver's job lineage in another (absent in checkpoints of older builds: restored empty).
     */
    static final class CommittingSink implements Downstream {
        private final TwoPhaseCommittingSink<Object, Object> sink;
        private final SinkContext sinkContext;
        private final TaskCounters counters;
        private ListState<Object> committables;
        private ListState<String> jobLineage;
        private List<Object> restored = List.of();
        private final Set<String> restoredLineage = new TreeSet<>();
        private CommittingSinkDriver<Object, Object> driver;
        /** The first checkpoint whose snapshot came after the end of input; -1 before it. */
        private long firstSnapshotAfterEnd = -1;
        private boolean inputEnded;
        private boolean cleanedUpAtEnd;

        CommittingSink(TwoPhaseCommittingSink<Object, Object> sink, SinkContext sinkContext, TaskCounters counters) {
            this.sink = sink;
            this.sinkContext = sinkContext;
            this.counters = counters;
        }

        @Override
        public void initializeState(StateInitializationContext context) {
            committables = context.operatorState().getUnionListState(
                    new ListStateDescriptor<>(COMMITTABLES_STATE, sink.committableSerializer()));
            List<Object> list = new ArrayList<>();
            committables.get().forEach(list::add);
            restored = list;
            jobLineage = context.operatorState().getUnionListState(
                    new ListStateDescriptor<>(JOB_LINEAGE_STATE, Types.STRING));
            jobLineage.get().forEach(restoredLineage::add); // one copy per old subtask
        }

        @Override
        public void open(OperatorContext context) throws Exception {
            driver = CommittingSinkDriver.open(sink, sinkContext, restored, restoredLineage);
            restored = List.of();
        }

        @Override
        public void push(Object record) throws Exception {
            counters.recordsOut++;
            driver.write(record);
        }

        @Override
        public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
            return driver.isSnapshotAvailable(checkpointId);
        }

        @Override
        public void endInput() {
            inputEnded = true;
        }

        @Override
        public void snapshotState(long checkpointId) throws Exception {
            committables.update(driver.snapshotState(checkpointId));
            jobLineage.update(List.copyOf(driver.jobLineage()));
            if (inputEnded && firstSnapshotAfterEnd < 0) {
                firstSnapshotAfterEnd = checkpointId;
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            driver.notifyCheckpointComplete(checkpointId);
            // The task finishes on this completion: nothing of this subtask will be committed later.
            if (firstSnapshotAfterEnd >= 0 && checkpointId >= firstSnapshotAfterEnd && !cleanedUpAtEnd) {
                cleanedUpAtEnd = true;
                driver.cleanUpAtEnd();
            }
        }

        /** The input ended and the job takes no checkpoints: commits what was written (see the driver). */
        void commitAtEndWithoutCheckpoints() throws Exception {
            driver.commitAtEndWithoutCheckpoints();
            cleanedUpAtEnd = true;
        }

        int waitingCount() {
            return driver == null ? 0 : driver.waitingCount();
        }

        @Override
        public void close() throws Exception {
            if (driver != null) {
                driver.close();
            }
        }
    }

    /**
     * Collect in streaming mode, exactly once: what was collected up to a checkpoint is in its
     * operator state, so an attempt restored from it starts with those records and the replayed
     * input adds only what came after.
     */
    static final class Collect implements Downstream {
        final ChainedOperators.CollectOperator collected;
        private ListState<byte[]> state;

        Collect(ChainedOperators.CollectOperator collected) {
            this.collected = collected;
        }

        @Override
        public void initializeState(StateInitializationContext context) {
            state = context.operatorState().getListState(new ListStateDescriptor<>(COLLECTED_STATE, Types.BYTES));
            for (byte[] chunk : state.get()) {
                DataReader in = new DataReader(chunk);
                collected.records += in.readVarLong();
                int length = in.readVarInt();
                collected.buffer.writeBytes(in.readBytes(length));
            }
        }

        @Override
        public void push(Object record) {
            collected.push(record);
        }

        @Override
        public void snapshotState(long checkpointId) {
            // One chunk: (records, bytes). Several restored chunks (a rescale) are appended in order.
            DataWriter chunk = new DataWriter(collected.buffer.position() + 16);
            chunk.writeVarLong(collected.records);
            chunk.writeVarInt(collected.buffer.position());
            chunk.writeBytes(collected.buffer.buffer(), 0, collected.buffer.position());
            state.update(List.of(chunk.toByteArray()));
        }
    }

    /**
     * Writes each record to the subpartition of the consumer subtask that owns the record's key
     * group, the same key group the consumer's keyed backend computes from the serialized key.
     */
    static Downstream keyGroupHash(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType,
            TypeSerializer<Object> recordType, PipelinedResultPartition partition, int maxParallelism,
            TaskCounters counters) {
        int consumers = partition.subpartitionCount();
        DataWriter keyScratch = new DataWriter(64);
        DataWriter recordScratch = new DataWriter(256);
        if ((Object) keyType == io.duraflow.api.types.Types.LONG) {
            // The common case, without writing the key: the same key group as below.
            return record -> {
                Object key = ExchangeOutputs.requireKey(keySelector.getKey(record), "keyBy");
                int keyGroup = Murmur.keyGroupOfLong((Long) key, maxParallelism);
                recordScratch.reset();
                recordType.write(record, recordScratch);
                partition.write(KeyGroupRange.operatorIndexOf(maxParallelism, consumers, keyGroup),
                        recordScratch.buffer(), 0, recordScratch.position());
                counters.recordsOut++;
            };
        }
        return record -> {
            keyScratch.reset();
            keyType.write(ExchangeOutputs.requireKey(keySelector.getKey(record), "keyBy"), keyScratch);
            int keyGroup = Murmur.keyGroup(keyScratch.buffer(), 0, keyScratch.position(), maxParallelism);
            recordScratch.reset();
            recordType.write(record, recordScratch);
            partition.write(KeyGroupRange.operatorIndexOf(maxParallelism, consumers, keyGroup),
                    recordScratch.buffer(), 0, recordScratch.position());
            counters.recordsOut++;
        };
    }

    /**
     * The end of a chain that writes into a pipelined partition: records through {@code records}
     * (the edge's shipping strategy), watermarks as events to every consumer.
     */
    static Downstream pipelinedExchange(Downstream records, PipelinedResultPartition partition) {
        return new Downstream() {
            @Override
            public void push(Object record) throws Exception {
                records.push(record);
            }

            @Override
            public void processWatermark(long watermark) {
                partition.broadcastEvent(new io.duraflow.exchange.pipelined.NetworkEvent.Watermark(watermark));
            }
        };
    }


    static NonRetriableException unsupported(String what) {
        return new NonRetriableException(what + " does not run in streaming mode yet; run the job with"
                + " execution.runtime-mode: batch");
    }
}

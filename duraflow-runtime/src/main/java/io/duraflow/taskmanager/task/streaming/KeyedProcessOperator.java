package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.SideOutputs;

/**
 * Runs a {@link KeyedProcessFunction}: sets each record's key as the backend's current key, so
 * the function's state and timers are those of that key. Its context, collector and timers are a
 * {@link KeyedFunctionContext}'s: processing-time timers fire as mails, event-time timers in
 * {@link #processWatermark}, before the watermark goes downstream.
 */
final class KeyedProcessOperator implements HeadOperator {
    private final KeyedProcessFunction<Object, Object, Object> function;
    private final KeyPrefetch keyPrefetch;
    private final KeyedFunctionContext keyed;

    KeyedProcessOperator(Operation.KeyedProcessOp op, Downstream out, ProcessingTimeService time, RecordTime recordTime) {
        this(op, out, SideOutputs.NONE, time, recordTime);
    }

    /** {@code out}: the main output's readers; {@code sideOutputs}: where {@code context.output} goes, by tag. */
    KeyedProcessOperator(Operation.KeyedProcessOp op, Downstream out, SideOutputs sideOutputs, ProcessingTimeService time,
            RecordTime recordTime) {
        this.function = op.function();
        this.keyPrefetch = new KeyPrefetch(op.keySelector());
        this.keyed = new KeyedFunctionContext(out, sideOutputs, time, recordTime, function::onTimer);
    }

    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
        return function.isSnapshotAvailable(checkpointId);
    }

    @Override
    public void initializeState(StateInitializationContext state) {
        keyed.initialize(state, "keyed process function");
    }

    @Override
    public void open(OperatorContext operator) throws Exception {
        function.open(keyed.runtimeContext(operator));
        keyed.start();
    }

    @Override
    public void process(int input, Object record, int serializedBytes) throws Exception {
        keyed.setCurrentKey(keyPrefetch.keyOf(record));
        function.processElement(record, keyed.context(), keyed.collector());
        keyed.afterRecord();
    }

    @Override
    public void prefetch(int input, Object[] records, int count) {
        keyPrefetch.prefetch(keyed.backend(), records, count);
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
        keyed.processWatermark(watermark);
    }

    @Override
    public void endInput(int input) throws Exception {
        // Processing-time timers not yet due do not fire at the end: their time never came.
    }

    @Override
    public void close() throws Exception {
        function.close();
    }
}

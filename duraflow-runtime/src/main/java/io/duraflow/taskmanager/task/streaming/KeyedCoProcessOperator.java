package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.SideOutputs;

/**
 * Runs a {@link KeyedCoProcessFunction} over two inputs: a record of input 0 goes to {@code
 * processElement1} with the left key selector's key as the backend's current key, one of input 1
 * to {@code processElement2} with the right one's. Both inputs share the keyed state and the
 * timers of a key ({@link KeyedFunctionContext}).
 *
 * <p>Its watermark is the input gate's, the lowest over the channels of both inputs, so an
 * event-time timer fires once both inputs passed it. The inputs end independently, in either
 * order; the gate delivers the end of time only when both ended, so every event-time timer fires
 * after the last record of either input.
 */
final class KeyedCoProcessOperator implements HeadOperator {
    private final KeyedCoProcessFunction<Object, Object, Object, Object> function;
    private final KeyPrefetch leftPrefetch;
    private final KeyPrefetch rightPrefetch;
    private final KeyedFunctionContext keyed;

    KeyedCoProcessOperator(Operation.KeyedCoProcessOp op, Downstream out, ProcessingTimeService time,
            RecordTime recordTime) {
        this(op, out, SideOutputs.NONE, time, recordTime);
    }

    /** {@code out}: the main output's readers; {@code sideOutputs}: where {@code context.output} goes, by tag. */
    KeyedCoProcessOperator(Operation.KeyedCoProcessOp op, Downstream out, SideOutputs sideOutputs,
            ProcessingTimeService time, RecordTime recordTime) {
        this.function = op.function();
        this.leftPrefetch = new KeyPrefetch(op.keySelector(0));
        this.rightPrefetch = new KeyPrefetch(op.keySelector(1));
        this.keyed = new KeyedFunctionContext(out, sideOutputs, time, recordTime, function::onTimer);
    }

    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
        return function.isSnapshotAvailable(checkpointId);
    }

    @Override
    public void initializeState(StateInitializationContext state) {
        keyed.initialize(state, "keyed co-process function");
    }

    @Override
    public void open(OperatorContext operator) throws Exception {
        function.open(keyed.runtimeContext(operator));
        keyed.start();
    }

    @Override
    public void process(int input, Object record, int serializedBytes) throws Exception {
        switch (input) {
            case 0 -> {
                keyed.setCurrentKey(leftPrefetch.keyOf(record));
                function.processElement1(record, keyed.context(), keyed.collector());
            }
            case 1 -> {
                keyed.setCurrentKey(rightPrefetch.keyOf(record));
                function.processElement2(record, keyed.context(), keyed.collector());
            }
            default -> throw new IllegalArgumentException("a keyed co-process operator has inputs 0 and 1, not "
                    + input);
        }
        keyed.afterRecord();
    }

    @Override
    public void prefetch(int input, Object[] records, int count) {
        if (input == 0 || input == 1) {
            (input == 0 ? leftPrefetch : rightPrefetch).prefetch(keyed.backend(), records, count);
        }
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
        keyed.processWatermark(watermark);
    }

    @Override
    public void endInput(int input) {
        // Nothing is pending per input: event-time timers fire at the end of time, which the gate
        // delivers once both inputs ended; processing-time timers not yet due never fire.
    }

    @Override
    public void close() throws Exception {
        function.close();
    }
}

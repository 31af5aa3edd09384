package io.duraflow.taskmanager.task;

/** The first operator of a non-source chain: it reads the vertex's input edges. */
public interface HeadOperator extends StreamOperator {
    /** Passes every record on (the head of a rebalanced input). */
    static HeadOperator passThrough(Downstream out) {
        return new HeadOperator() {
            @Override
            public void process(int input, Object record, int serializedBytes) throws Exception {
                out.push(record);
            }

            @Override
            public void endInput(int input) {}

            @Override
            public void processWatermark(long watermark) throws Exception {
                out.processWatermark(watermark);
            }
        };
    }

    /** One record of input {@code input}; {@code serializedBytes} is its size on the wire. */
    void process(int input, Object record, int serializedBytes) throws Exception;

    /**
     * A hint before {@link #process} is called for {@code records[0..count)} of input {@code
     * input}, in this order: the operator may prepare for them (a keyed one loads their keys'
     * state into the CPU caches together). Changes no state, emits nothing, throws nothing ({@link
     * #process} meets any problem with a record, in order). The default does nothing.
     */
    default void prefetch(int input, Object[] records, int count) {
    }

    /**
     * Input {@code input} has no more records; called once per input. A batch task reads its
     * inputs one after another, so they end in order 0, 1, ...; a streaming task reads them at
     * once, and they end in the order their last channels end.
     */
    void endInput(int input) throws Exception;
}

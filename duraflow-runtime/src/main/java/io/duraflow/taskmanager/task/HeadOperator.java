package io.duraflow.taskmanager.task;

/** The first operator of a non-source chain: it reads the vertex's input edges. */
interface HeadOperator extends StreamOperator {
    /** One record of input {@code input}; {@code serializedBytes} is its size on the wire. */
    void process(int input, Object record, int serializedBytes) throws Exception;

    /** Input {@code input} has no more records; inputs end in order 0, 1, .... */
    void endInput(int input) throws Exception;
}

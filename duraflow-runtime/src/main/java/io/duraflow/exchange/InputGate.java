package io.duraflow.exchange;

/**
 * The input of a non-source task: the channels of every input edge, one per producer partition.
 * Inputs end in order 0, 1, ... (the build side of a join before its probe side).
 */
public interface InputGate {
    /** Where the gate delivers what it reads; on the task thread. */
    interface Handler {
        /** A buffer of whole frames of input {@code input}, from partition {@code partitionId}. */
        void buffer(int input, String partitionId, byte[] frames) throws Exception;

        /** Input {@code input} has no more records. */
        void endOfInput(int input) throws Exception;
    }

    /**
     * Delivers the next part of the input to {@code handler}: the buffers of the next channel, or
     * the end of an input.
     *
     * @return false once every input has ended
     */
    boolean processNext(Handler handler) throws Exception;
}

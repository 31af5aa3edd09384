package io.duraflow.api.functions;

/**
 * Handles one joined pair of an interval join ({@code left.intervalJoin(right).between(lower,
 * upper).process(function)}): a left and a right record of one key whose timestamps are within
 * the bounds. What it emits carries {@link Context#timestamp()}, the later of the two.
 *
 * @param <L> the left record type
 * @param <R> the right record type
 * @param <O> the output record type
 */
public abstract class ProcessJoinFunction<L, R, O> {
    /** The timestamps of the pair being joined. */
    public interface Context {
        long leftTimestamp();

        long rightTimestamp();

        /** The timestamp of what the function emits: the higher of the two. */
        default long timestamp() {
            return Math.max(leftTimestamp(), rightTimestamp());
        }
    }

    /** Called once per parallel instance before the first pair, after state is restored. */
    public void open(RuntimeContext context) throws Exception {}

    public abstract void processElement(L left, R right, Context context, Collector<O> out) throws Exception;

    /** Called once at the end, also after a failure; release resources here. */
    public void close() throws Exception {}
}

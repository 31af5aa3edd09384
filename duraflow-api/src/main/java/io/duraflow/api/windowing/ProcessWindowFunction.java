package io.duraflow.api.windowing;

import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.functions.RuntimeContext;

/**
 * Computes a window's result from all its records, or from the one result of an incremental
 * {@code reduce} or {@code aggregate} before it. What it emits carries the window's {@link
 * Window#maxTimestamp()} as its timestamp.
 *
 * @param <IN> the window's records (or the incremental result)
 * @param <OUT> what it emits
 * @param <K> the key
 * @param <W> the windows
 */
public abstract class ProcessWindowFunction<IN, OUT, K, W extends Window> {
    /** What a call knows about its window. */
    public interface Context<W extends Window> {
        W window();

        long currentWatermark();

        long currentProcessingTime();

        /** Emits {@code value} to a side output, read with {@code flow.sideOutput(tag)}. */
        <X> void output(OutputTag<X> tag, X value);
    }

    /** Called once per parallel instance before the first window fires. */
    public void open(RuntimeContext context) throws Exception {}

    public abstract void process(K key, Context<W> context, Iterable<IN> elements, Collector<OUT> out) throws Exception;

    /** Called once at the end, also after a failure. */
    public void close() throws Exception {}
}

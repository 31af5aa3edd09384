package io.duraflow.api.source;

import io.duraflow.api.functions.Collector;

/**
 * Where a {@link SourceReader} emits. Records collected here directly belong to the reader as a
 * whole; a reader that reads several splits side by side emits each split's records through
 * {@link #forSplit}, so that a job with event time generates watermarks per split (a split that
 * runs ahead then cannot make another's records late) and combines them: the reader's watermark
 * is the lowest of its splits that are neither idle nor finished.
 *
 * @param <T> the record type
 */
public interface ReaderOutput<T> extends Collector<T> {
    /** A record with the timestamp its source gives it (say, a message's time), milliseconds since the epoch. */
    void collect(T record, long timestamp);

    /**
     * The output of split {@code splitId}, the same one for the same id until {@link
     * #releaseSplit}: take it when the reader starts reading the split.
     */
    SplitOutput<T> forSplit(String splitId);

    /** Split {@code splitId} was read to its end: it holds the reader's watermark back no more. */
    void releaseSplit(String splitId);

    /**
     * An output that hands every record, of whichever split, to {@code records} and drops
     * timestamps: for reading a reader outside a job (tests, tools).
     */
    static <T> ReaderOutput<T> of(Collector<T> records) {
        SplitOutput<T> split = new SplitOutput<>() {
            @Override
            public void collect(T record) {
                records.collect(record);
            }

            @Override
            public void collect(T record, long timestamp) {
                records.collect(record);
            }
        };
        return new ReaderOutput<>() {
            @Override
            public void collect(T record) {
                records.collect(record);
            }

            @Override
            public void collect(T record, long timestamp) {
                records.collect(record);
            }

            @Override
            public SplitOutput<T> forSplit(String splitId) {
                return split;
            }

            @Override
            public void releaseSplit(String splitId) {}
        };
    }

    /** What a reader emits one split's records into. */
    interface SplitOutput<T> extends Collector<T> {
        /** A record of this split with the timestamp its source gives it. */
        void collect(T record, long timestamp);
    }
}

package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.RangeReader;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.List;
import java.util.TreeMap;

/**
 * A multi-stage batch job for failover demonstrations: {@code sources} source tasks, each reading
 * its own range of numbers (so with fewer slots than sources they run in waves and some finish
 * long before others), then a keyed sum over {@code keys} keys, then a sum per key bucket.
 *
 * <p>Parameters: {@code records} (default 40,000,000), {@code sources} (default 8), {@code keys}
 * (default 10,000). The result, "sums", is (bucket, sum of the values of its keys) for 100
 * buckets; {@link #expected} computes it independently.
 */
public final class RecoveryDemo implements DuraflowJob {
    public static final String RESULT = "sums";
    static final int BUCKETS = 100;

    @Override
    public String description() {
        return "multi-stage batch job whose source tasks finish in waves (for failover demos)";
    }

    /** The value of record i. */
    public static long value(long i) {
        return (i * 2_654_435_761L) % 1_000;
    }

    /** Bucket -> sum, computed with plain loops. */
    public static long[] expected(long records, long keys) {
        long[] sums = new long[BUCKETS];
        for (long i = 0; i < records; i++) {
            sums[(int) ((i % keys) % BUCKETS)] += value(i);
        }
        return sums;
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("RecoveryDemo");
        long records = params.getLong("records", 40_000_000L, 0, Long.MAX_VALUE / 4);
        int sources = params.getInt("sources", 8, 1, 1024);
        long keys = params.getLong("keys", 10_000L, 1, Integer.MAX_VALUE);
        job.fromSource("numbers", new PerSubtaskSource(records, sources)).parallelism(sources)
                .map(i -> Tuple2.of(i % keys, value(i)), Types.tuple(Types.LONG, Types.LONG)).name("key")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("sum per key")
                .map(t -> Tuple2.of(t.f0() % BUCKETS, t.f1()), Types.tuple(Types.LONG, Types.LONG)).name("bucket")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("sum per bucket")
                .collect(RESULT);
    }

    /**
     * Numbers 0..records-1 in one range per source subtask; subtask i only ever gets range i, so
     * how long a subtask runs does not depend on how fast the others are. Run it with parallelism
     * {@code ranges}. The ranges are {@link RangeSplit#split}'s; with fewer records than ranges
     * the last subtasks get none.
     */
    public static final class PerSubtaskSource implements Source<Long, RangeSplit> {
        private final long records;
        private final int ranges;

        public PerSubtaskSource(long records, int ranges) {
            this.records = records;
            this.ranges = ranges;
        }

        @Override
        public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context) {
            TreeMap<Integer, RangeSplit> bySubtask = new TreeMap<>();
            List<RangeSplit> splits = RangeSplit.split(0, records, ranges);
            for (int subtask = 0; subtask < splits.size(); subtask++) {
                bySubtask.put(subtask, splits.get(subtask));
            }
            return new OwnSplitEnumerator(context, bySubtask);
        }

        @Override
        public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context, byte[] state) {
            return OwnSplitEnumerator.restore(context, state);
        }

        @Override
        public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) {
            return new RangeReader<>(context, Long::valueOf);
        }

        @Override
        public SplitSerializer<RangeSplit> splitSerializer() {
            return RangeSplit.SERIALIZER;
        }

        @Override
        public TypeSerializer<Long> producedType() {
            return Types.LONG;
        }

        @Override
        public String description() {
            return "per-subtask-ranges(" + records + "," + ranges + ")";
        }
    }

    /**
     * Gives subtask i range i and nothing else. State: {@code varint version(1) | varint count |
     * count x (varint subtask | varint length | split bytes)}.
     */
    static final class OwnSplitEnumerator implements SplitEnumerator<RangeSplit> {
        private final SplitEnumeratorContext<RangeSplit> context;
        private final TreeMap<Integer, RangeSplit> unassigned;

        OwnSplitEnumerator(SplitEnumeratorContext<RangeSplit> context, TreeMap<Integer, RangeSplit> unassigned) {
            this.context = context;
            this.unassigned = unassigned;
        }

        static OwnSplitEnumerator restore(SplitEnumeratorContext<RangeSplit> context, byte[] state) {
            DataReader in = new DataReader(state);
            if (in.readVarInt() != 1) {
                throw new IllegalArgumentException("unknown enumerator state version");
            }
            TreeMap<Integer, RangeSplit> unassigned = new TreeMap<>();
            int count = in.readVarInt();
            for (int i = 0; i < count; i++) {
                int subtask = in.readVarInt();
                unassigned.put(subtask, RangeSplit.SERIALIZER.fromBytes(in.readBytes(in.readVarInt())));
            }
            return new OwnSplitEnumerator(context, unassigned);
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtask) {
            RangeSplit split = unassigned.remove(subtask);
            if (split != null) {
                context.assignSplit(split, subtask);
            } else {
                context.signalNoMoreSplits(subtask);
            }
        }

        @Override
        public void addSplitsBack(List<RangeSplit> splits, int subtask) {
            for (RangeSplit split : splits) {
                unassigned.put(subtask, split);
            }
        }

        @Override
        public byte[] snapshotState(long checkpointId) {
            DataWriter out = new DataWriter();
            out.writeVarInt(1);
            out.writeVarInt(unassigned.size());
            for (var entry : unassigned.entrySet()) {
                byte[] bytes = RangeSplit.SERIALIZER.toBytes(entry.getValue());
                out.writeVarInt(entry.getKey());
                out.writeVarInt(bytes.length);
                out.writeBytes(bytes);
            }
            return out.toByteArray();
        }
    }
}

package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming benchmark job: generated records (key = i * 7919 % keys, value = i),
 * keyed by key, with a value state holding (sum, count) per key and nothing emitted per record.
 *
 * <p>Parameters: {@code records} (default 50,000,000; {@code 0} means endless), {@code keys}
 * (default 100,000; not a multiple of 7919, so every block of {@code keys} consecutive indexes
 * hits every key once), {@code rate} (records per second over all source readers, default 0 =
 * unlimited), {@code output} (directory the exactly-once {@link FileSink} writes the sums to, one
 * line {@code key,sum,count} each; {@link #readOutput} reads the committed parts back), {@code fail-at} (for benchmarks and demos: the first attempt of the subtask that gets
 * record {@code fail-at} throws there, once; default -1 = never). Parallelism is the job's default
 * ({@code --parallelism}).
 *
 * <p>Runtime mode: the job has a keyed process function, so {@code automatic} mode runs it in
 * streaming mode, bounded (records > 0) or endless; checkpoints need {@code
 * execution.checkpointing.interval}.
 *
 * <p>Result for the exactness check: the job has no event time (an event-time timer would fire at
 * the end of input, the end of time), and keyed functions have no end-of-input hook, so each key emits
 * (key, sum, count) once, on the record that brings its count to {@link #expectedCount}, which the
 * parameters determine. An endless run never emits. Without {@code output} these records are
 * collected as {@value #RESULT}; {@link #verify} checks them against N(N-1)/2 and the key count.
 */
public final class StreamingKeyedSum implements DuraflowJob {
    public static final String RESULT = "sums";
    public static final long DEFAULT_RECORDS = 50_000_000L;
    public static final long DEFAULT_KEYS = 100_000L;
    /** The multiplier of the key formula; prime, so any {@code keys} it does not divide works. */
    static final long KEY_MULTIPLIER = 7919;

    public static final TypeSerializer<Tuple2<Long, Long>> RECORD_TYPE = Types.tuple(Types.LONG, Types.LONG);
    public static final TypeSerializer<Tuple3<Long, Long, Long>> RESULT_TYPE =
            Types.tuple(Types.LONG, Types.LONG, Types.LONG);

    @Override
    public String description() {
        return "keyed sum and count per key over generated records in a value state (the streaming benchmark)";
    }

    /**
     * The key of record {@code index}: {@code index * 7919 % keys}, computed as
     * {@code (index % keys) * 7919 % keys}, which is the same for every index but never overflows
     * (an endless run's index can grow past {@code Long.MAX_VALUE / 7919}).
     */
    public static long key(long index, long keys) {
        return (index % keys) * KEY_MULTIPLIER % keys;
    }

    /** N(N-1)/2: the sum of all values 0..records-1, which the sums of all keys add up to. */
    public static long expectedSumOfSums(long records) {
        if (records < 0) {
            throw new IllegalArgumentException("records must not be negative, got " + records);
        }
        return records % 2 == 0 ? Math.multiplyExact(records / 2, Math.max(0, records - 1))
                : Math.multiplyExact(records, (records - 1) / 2);
    }

    /**
     * How many of the indexes 0..records-1 have key {@code key}: records / keys, plus one for the
     * keys of the last, partial block of indexes. Index j of a block has key j * 7919 % keys, so
     * the key k belongs to index k * 7919^-1 (mod keys) of its block, which is in the partial
     * block when it is below records % keys.
     */
    public static long expectedCount(long key, long records, long keys) {
        return expectedCount(key, records, keys, inverseOfMultiplier(keys));
    }

    /** {@link #expectedCount(long, long, long)} for the per-record path: {@code inverse} is {@link #inverseOfMultiplier}. */
    public static long expectedCount(long key, long records, long keys, long inverse) {
        long remainder = records % keys;
        return records / keys + (remainder > 0 && key * inverse % keys < remainder ? 1 : 0);
    }

    /** 7919^-1 mod keys; compute once per job, not per record (it is a BigInteger operation). */
    public static long inverseOfMultiplier(long keys) {
        return BigInteger.valueOf(KEY_MULTIPLIER).modInverse(BigInteger.valueOf(keys)).longValueExact();
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("StreamingKeyedSum");
        long records = params.getLong("records", DEFAULT_RECORDS, 0, Long.MAX_VALUE / KEY_MULTIPLIER);
        long keys = params.getLong("keys", DEFAULT_KEYS, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        long failAt = params.getLong("fail-at", -1, -1, Long.MAX_VALUE);
        if (keys % KEY_MULTIPLIER == 0) {
            throw new InvalidJobParametersException("job parameter 'keys' must not be a multiple of " + KEY_MULTIPLIER
                    + " (some keys would get no records), got " + keys);
        }
        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource
                .of("keyed-records(keys=" + keys + ")", RECORD_TYPE, i -> Tuple2.of(key(i, keys), i))
                .withRate(rate);
        if (records > 0) {
            source = source.withCount(records);
        }
        Flow<Tuple3<Long, Long, Long>> sums = job.fromSource("Generate records", source).uid("generate-records")
                .keyBy(Tuple2::f0, Types.LONG)
                .process(new SumPerKey(records, keys, failAt), RESULT_TYPE).name("Sum per key").uid("sum-per-key");
        if (params.has("output")) {
            // Exactly once through any crash: a checkpoint's part files become visible when it completes.
            sums.sinkTo("Write sums", new FileSink<Tuple3<Long, Long, Long>>(params.getRequired("output"),
                    StreamingKeyedSum::formatLine));
            return;
        }
        sums.collect(RESULT);
    }

    /**
     * Keeps (sum, count) of each key in a value state; emits (key, sum, count) once, when the
     * count reaches {@link #expectedCount} (never for an endless run, {@code records == 0}). The
     * state value is an immutable tuple replaced through {@code update}, never changed in place, so
     * a snapshot taken by the state backend cannot see a half-applied record.
     *
     * <p>For the failure runs of the benchmark and the demos it logs three kinds of lines (at INFO,
     * in its TaskManager's log; times in microseconds since the epoch, comparable between the
     * processes of one machine): {@value #FAILURE_LINE} when it throws at {@code fail-at}, {@value
     * #RESUMED_LINE} on the first record of a restarted attempt, and {@value #PROCESSED_LINE} with
     * the records the attempt processed when it closes (also after a failure or cancellation).
     */
    public static final class SumPerKey extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
        static final ValueStateDescriptor<Tuple2<Long, Long>> SUM_AND_COUNT =
                new ValueStateDescriptor<>("sum-and-count", RECORD_TYPE);
        /** Logged as {@code <line> subtask=S attempt=A at-us=T record=I}. */
        public static final String FAILURE_LINE = "sum-per-key injected failure";
        /** Logged as {@code <line> subtask=S attempt=A at-us=T record=I}. */
        public static final String RESUMED_LINE = "sum-per-key first record after restart";
        /** Logged as {@code <line> subtask=S attempt=A records=N}. */
        public static final String PROCESSED_LINE = "sum-per-key attempt closed";
        private static final Logger LOG = LoggerFactory.getLogger(SumPerKey.class);

        private final long records;
        private final long keys;
        private final long inverse;
        private final long leastCount;
        private final long failAt;
        private transient ValueState<Tuple2<Long, Long>> sumAndCount;
        private transient boolean firstAttempt;
        private transient int subtask;
        private transient int attempt;
        /** Records processed by this attempt. */
        private transient long processed;

        /** @param failAt the value (record index) at which the first attempt throws; -1: never */
        public SumPerKey(long records, long keys, long failAt) {
            this.records = records;
            this.keys = keys;
            this.inverse = inverseOfMultiplier(keys);
            this.leastCount = records / keys;
            this.failAt = failAt;
        }

        @Override
        public void open(RuntimeContext context) {
            sumAndCount = context.state().getState(SUM_AND_COUNT);
            firstAttempt = context.attemptNumber() == 0;
            subtask = context.subtaskIndex();
            attempt = context.attemptNumber();
        }

        @Override
        public void processElement(Tuple2<Long, Long> record, Context<Long> context,
                Collector<Tuple3<Long, Long, Long>> out) {
            if (firstAttempt && record.f1() == failAt) {
                LOG.info("{} subtask={} attempt={} at-us={} record={}", FAILURE_LINE, subtask, attempt, nowMicros(),
                        failAt);
                // Before the state changes, so the restored run must process this record again.
                throw new IllegalStateException("injected failure at record " + failAt + " (job parameter fail-at)");
            }
            if (processed++ == 0 && !firstAttempt) {
                LOG.info("{} subtask={} attempt={} at-us={} record={}", RESUMED_LINE, subtask, attempt, nowMicros(),
                        record.f1());
            }
            Tuple2<Long, Long> current = sumAndCount.value();
            long sum = (current == null ? 0 : current.f0()) + record.f1();
            long count = (current == null ? 0 : current.f1()) + 1;
            sumAndCount.update(Tuple2.of(sum, count));
            // The cheap test first: no key's count is complete below records / keys.
            if (records > 0 && count >= leastCount && count == expectedCount(record.f0(), records, keys, inverse)) {
                out.collect(Tuple3.of(record.f0(), sum, count));
            }
        }

        @Override
        public void close() {
            LOG.info("{} subtask={} attempt={} records={}", PROCESSED_LINE, subtask, attempt, processed);
        }

        private static long nowMicros() {
            return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        }
    }

    /** The line the file sink writes for one result: {@code key,sum,count}. */
    public static String formatLine(Tuple3<Long, Long, Long> sum) {
        return sum.f0() + "," + sum.f1() + "," + sum.f2();
    }

    /**
     * The results committed to {@code output}: every line of its visible part files ({@code
     * part-*}; in-progress files are hidden and skipped), for {@link #verify}.
     *
     * @throws IllegalArgumentException naming the file and line of a line that is not {@code key,sum,count}
     */
    public static List<Tuple3<Long, Long, Long>> readOutput(Path output) throws IOException {
        List<Tuple3<Long, Long, Long>> sums = new ArrayList<>();
        if (!Files.isDirectory(output)) {
            return sums;
        }
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(output, "part-*")) {
            for (Path part : parts) {
                int lineNumber = 0;
                for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
                    lineNumber++;
                    String[] fields = line.split(",");
                    try {
                        if (fields.length != 3) {
                            throw new NumberFormatException("expected 3 fields");
                        }
                        sums.add(Tuple3.of(Long.parseLong(fields[0]), Long.parseLong(fields[1]),
                                Long.parseLong(fields[2])));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(part + " line " + lineNumber + " is not 'key,sum,count': '"
                                + line + "'");
                    }
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return sums;
    }

    /**
     * What is wrong with a run's collected (key, sum, count) records, one line per problem; empty
     * when they are exact: one record per key, each key's count what {@link #expectedCount} says,
     * and the sums adding up to {@link #expectedSumOfSums}. Only the problems of the first 10 keys
     * are listed, and then the totals.
     */
    public static List<String> verify(Iterable<Tuple3<Long, Long, Long>> sums, long records, long keys) {
        List<String> problems = new ArrayList<>();
        Map<Long, Tuple3<Long, Long, Long>> byKey = new HashMap<>();
        long sumOfSums = 0;
        for (Tuple3<Long, Long, Long> sum : sums) {
            Tuple3<Long, Long, Long> earlier = byKey.put(sum.f0(), sum);
            if (earlier != null && problems.size() < 10) {
                problems.add("key " + sum.f0() + " emitted twice: " + earlier + " and " + sum);
            }
            long expected = expectedCount(sum.f0(), records, keys);
            if (sum.f2() != expected && problems.size() < 10) {
                problems.add("key " + sum.f0() + " counted " + sum.f2() + " records, expected " + expected);
            }
            sumOfSums += sum.f1();
        }
        long expectedKeys = Math.min(records, keys);
        if (byKey.size() != expectedKeys) {
            problems.add(byKey.size() + " keys emitted, expected " + expectedKeys);
        }
        if (sumOfSums != expectedSumOfSums(records)) {
            problems.add("sum of sums " + sumOfSums + ", expected N(N-1)/2 = " + expectedSumOfSums(records));
        }
        return problems;
    }
}

package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.Map;
import java.util.TreeMap;

/**
 * The union of two sources of different parallelism (2 and 3): "low" makes the numbers 1 ..
 * records, "high" records+1 .. 2·records, each as (number % keys, number). The union goes into a
 * keyed reduce that sums the numbers of each key (one exchange: the reduce reads both sources
 * directly) and into a map to the number alone (the union is then a task of its own).
 *
 * <p>Parameters: {@code records} (per source), {@code keys}, {@code rate} (records per second per
 * source; 0: unlimited), {@code output} (a directory: the exactly-once {@link FileSink}s write
 * {@code sums/} as {@code key,sum} and {@code numbers/}; without it both are collected as {@value
 * #SUMS} and {@value #NUMBERS}).
 */
public final class UnionOfSources implements DuraflowJob {
    public static final String SUMS = "sums";
    public static final String NUMBERS = "numbers";
    private static final TypeSerializer<Tuple2<Long, Long>> KEYED = Types.tuple(Types.LONG, Types.LONG);

    @Override
    public String description() {
        return "union of two sources into a keyed sum and a map";
    }

    /** Every key's sum over 1 .. 2·records. */
    public static Map<Long, Long> expectedSums(long records, long keys) {
        Map<Long, Long> sums = new TreeMap<>();
        for (long n = 1; n <= 2 * records; n++) {
            sums.merge(n % keys, n, Long::sum);
        }
        return sums;
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000, 1, Long.MAX_VALUE);
        long keys = params.getLong("keys", 11, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        Flow<Tuple2<Long, Long>> low = job.fromSource("Low", DataGeneratorSource.of("low(keys=" + keys + ")", KEYED,
                i -> Tuple2.of((i + 1) % keys, i + 1)).withCount(records).withRate(rate)).parallelism(2).uid("low");
        Flow<Tuple2<Long, Long>> high = job.fromSource("High", DataGeneratorSource.of("high(keys=" + keys + ")", KEYED,
                i -> Tuple2.of((records + i + 1) % keys, records + i + 1)).withCount(records).withRate(rate))
                .parallelism(3).uid("high");
        Flow<Tuple2<Long, Long>> union = low.union(high).uid("union");
        Flow<Tuple2<Long, Long>> sums = union.keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).uid("sum");
        Flow<Long> numbers = union.map(Tuple2::f1, Types.LONG).uid("number");
        if (params.has("output")) {
            String output = params.getRequired("output");
            sums.sinkTo("Write sums", new FileSink<Tuple2<Long, Long>>(output + "/sums", s -> s.f0() + "," + s.f1()));
            numbers.sinkTo("Write numbers", new FileSink<Long>(output + "/numbers", String::valueOf));
        } else {
            sums.collect(SUMS);
            numbers.collect(NUMBERS);
        }
    }
}

package io.duraflow.cli.demo;

import io.duraflow.api.types.Tuple3;
import io.duraflow.examples.StreamingKeyedSum;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exactly-once check of the streaming-failover demo: the committed output of
 * {@link StreamingKeyedSum} against a plain loop over the same generated records, which shares
 * no code with the job (record {@code i} has key {@code i * 7919 mod keys} and value {@code i}).
 */
public final class ExactOutput {
    /** Problems listed one per line, at most this many of each kind. */
    static final int MAX_LISTED = 10;

    private ExactOutput() {}

    /**
     * What is wrong with {@code output}: every (key, sum, count) the loop computes must be there
     * exactly once, and nothing else; then what {@link StreamingKeyedSum#verify} finds (its own
     * rules: one line per key, counts, sums adding up to N(N-1)/2). Empty when the output is exact.
     */
    public static List<String> check(List<Tuple3<Long, Long, Long>> output, long records, long keys) {
        java.util.Set<Tuple3<Long, Long, Long>> expected = expected(records, keys);
        List<String> problems = new ArrayList<>();
        Map<Tuple3<Long, Long, Long>, Integer> seen = new HashMap<>();
        int duplicates = 0;
        int unexpected = 0;
        for (Tuple3<Long, Long, Long> line : output) {
            int times = seen.merge(line, 1, Integer::sum);
            if (!expected.contains(line)) {
                if (unexpected++ < MAX_LISTED) {
                    problems.add("unexpected " + format(line) + " (key,sum,count)");
                }
            } else if (times == 2 && duplicates++ < MAX_LISTED) {
                problems.add("duplicate " + format(line));
            }
        }
        int missing = 0;
        for (Tuple3<Long, Long, Long> line : expected) {
            if (!seen.containsKey(line) && missing++ < MAX_LISTED) {
                problems.add("missing " + format(line));
            }
        }
        if (duplicates + unexpected + missing > 0) {
            problems.add(String.format("%,d lines read, %,d expected: %,d missing, %,d written more than once,"
                    + " %,d unexpected", output.size(), expected.size(), missing, duplicates, unexpected));
        }
        problems.addAll(StreamingKeyedSum.verify(output, records, keys));
        return problems;
    }

    /** The (key, sum, count) of every key, from a loop over the records. */
    static java.util.Set<Tuple3<Long, Long, Long>> expected(long records, long keys) {
        long[] sums = new long[(int) keys];
        long[] counts = new long[(int) keys];
        for (long i = 0; i < records; i++) {
            int key = (int) (i * 7919 % keys);  // no overflow: the job allows at most Long.MAX_VALUE / 7919 records
            sums[key] += i;
            counts[key]++;
        }
        java.util.Set<Tuple3<Long, Long, Long>> expected = new java.util.HashSet<>();
        for (int key = 0; key < keys; key++) {
            if (counts[key] > 0) {
                expected.add(Tuple3.of((long) key, sums[key], counts[key]));
            }
        }
        return expected;
    }

    private static String format(Tuple3<Long, Long, Long> line) {
        return line.f0() + "," + line.f1() + "," + line.f2();
    }
}

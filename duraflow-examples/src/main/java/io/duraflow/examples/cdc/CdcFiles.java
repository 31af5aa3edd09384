package io.duraflow.examples.cdc;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Input files for a {@link SnapshotChangelogSource} (a table and its change log, generated from
 * their sizes alone) and the exactness check of what a job wrote from them: every record once,
 * nothing else.
 */
public final class CdcFiles {
    /** Problems listed at most this many of each kind. */
    static final int MAX_LISTED = 10;

    private CdcFiles() {}

    /** Row {@code i} of the table: {@code i,customer-i,balance}. */
    public static String row(long i) {
        return i + ",customer-" + i + "," + (i * 7919 % 100_000);
    }

    /** Change {@code j} of the log: {@code j,update,id,balance} of row {@code j * 31 mod rows}. */
    public static String change(long j, long rows) {
        return j + ",update," + (j * 31 % Math.max(1, rows)) + "," + (j * 104_729 % 100_000);
    }

    /** Writes {@code table} with {@code rows} rows and {@code changelog} with {@code changes} changes. */
    public static void write(Path table, long rows, Path changelog, long changes) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(table, StandardCharsets.UTF_8)) {
            for (long i = 0; i < rows; i++) {
                out.write(row(i));
                out.write('\n');
            }
        }
        try (BufferedWriter out = Files.newBufferedWriter(changelog, StandardCharsets.UTF_8)) {
            for (long j = 0; j < changes; j++) {
                out.write(change(j, rows));
                out.write('\n');
            }
        }
    }

    /** The records the source emits from files {@link #write} wrote, each once. */
    public static List<String> expected(long rows, long changes) {
        List<String> expected = new ArrayList<>((int) Math.min(Integer.MAX_VALUE - 8, rows + changes));
        for (long i = 0; i < rows; i++) {
            expected.add(SnapshotChangelogSource.SNAPSHOT_TAG + row(i));
        }
        for (long j = 0; j < changes; j++) {
            expected.add(SnapshotChangelogSource.CHANGE_TAG + change(j, rows));
        }
        return expected;
    }

    /**
     * {@link #check} for outputs too large to hold: every line of the visible part files read
     * once, compared with the records of {@link #expected} by count and by two order-independent
     * sums of 64-bit hashes of each line (a missing, repeated or changed record changes them,
     * except with negligible probability). Empty when they agree; the problem does not name records.
     */
    public static List<String> checkDigest(Path output, long rows, long changes) throws IOException {
        long[] expected = new long[3];
        for (long i = 0; i < rows; i++) {
            add(expected, SnapshotChangelogSource.SNAPSHOT_TAG + row(i));
        }
        for (long j = 0; j < changes; j++) {
            add(expected, SnapshotChangelogSource.CHANGE_TAG + change(j, rows));
        }
        long[] actual = new long[3];
        if (Files.isDirectory(output)) {
            try (DirectoryStream<Path> parts = Files.newDirectoryStream(output, "part-*")) {
                for (Path part : parts) {
                    try (var lines = Files.lines(part, StandardCharsets.UTF_8)) {
                        lines.forEach(line -> add(actual, line));
                    }
                }
            }
        }
        if (java.util.Arrays.equals(expected, actual)) {
            return List.of();
        }
        return List.of(String.format("%,d records read, %,d expected, or records that differ (the digests of the"
                + " output and of the expected records differ)", actual[0], expected[0]));
    }

    private static void add(long[] digest, String line) {
        long h = 1125899906842597L;
        for (int i = 0; i < line.length(); i++) {
            h = 31 * h + line.charAt(i);
        }
        digest[0]++;
        digest[1] += mix(h);
        digest[2] += mix(h ^ 0x9E3779B97F4A7C15L) * 0x100000001B3L;
    }

    /** SplitMix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Every line of the visible part files ({@code part-*}) in {@code output}; in-progress files are hidden. */
    public static List<String> readOutput(Path output) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(output)) {
            return lines;
        }
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(output, "part-*")) {
            for (Path part : parts) {
                lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return lines;
    }

    /**
     * What is wrong with {@code actual} against {@code expected} as multisets (order does not
     * matter): records missing, written more than once, or unexpected. Empty when exact.
     */
    public static List<String> check(List<String> actual, List<String> expected) {
        Map<String, Integer> counts = new HashMap<>(expected.size() * 2);
        for (String line : expected) {
            counts.merge(line, 1, Integer::sum);
        }
        List<String> problems = new ArrayList<>();
        long duplicates = 0;
        long unexpected = 0;
        for (String line : actual) {
            Integer left = counts.get(line);
            if (left == null) {
                if (unexpected++ < MAX_LISTED) {
                    problems.add("unexpected '" + line + "'");
                }
            } else {
                counts.put(line, left - 1);
                if (left <= 0 && duplicates++ < MAX_LISTED) {
                    problems.add("more than once: '" + line + "'");
                }
            }
        }
        long missing = 0;
        for (Map.Entry<String, Integer> entry : counts.entrySet()) {
            if (entry.getValue() > 0) {
                if (missing < MAX_LISTED) {
                    problems.add("missing '" + entry.getKey() + "'");
                }
                missing += entry.getValue();
            }
        }
        if (!problems.isEmpty()) {
            problems.add(String.format("%,d records read, %,d expected: %,d missing, %,d written more than once,"
                    + " %,d unexpected", actual.size(), expected.size(), missing, duplicates, unexpected));
        }
        return problems;
    }
}

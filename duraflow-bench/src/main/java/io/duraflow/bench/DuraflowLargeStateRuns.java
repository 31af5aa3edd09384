package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.RestoreSettingsData;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TriggerSavepointRequest;
import io.duraflow.rpc.proto.TriggerSavepointResponse;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Duraflow's side of the savepoint-restore part of {@link StateBackendBenchmark}, the twin of
 * {@code FlinkLargeState}: on a local cluster (1 JobManager, 2 TaskManagers, Duraflow's class
 * path only) {@link LargeStateJob} builds about {@code stateBytes} of RocksDB keyed state ({@code
 * mode=build}) until every keyed subtask logged {@value LargeStateJob.StoreOrCheck#BUILT_LINE};
 * then a savepoint is taken and the job cancelled; then the job is submitted again from the
 * savepoint ({@code mode=restore}). Restore time: from just before the submission RPC to the
 * latest {@value LargeStateJob.StoreOrCheck#FIRST_LINE} of the restored job's keyed subtasks (wall
 * clock of this machine, microseconds, from the TaskManagers' logs). The restored job runs until
 * its subtasks checked at least {@code keys} values (their {@value
 * LargeStateJob.StoreOrCheck#CHECKED_LINE} lines), then it is cancelled; a wrong or missing value,
 * or a build that wrote another number of keys, makes the result not exact.
 *
 * <p>Periodic checkpoints are off (interval 10 min), as on Flink's side.
 */
final class DuraflowLargeStateRuns {
    /** The figures of one build, savepoint and restore. */
    record Result(long keys, long buildMillis, long savepointMillis, long savepointBytes, double restoreMillis,
            double firstSubtaskMillis, long written, long checked, long mismatched, long missing) {
        boolean exact() {
            return written == keys && checked >= keys && mismatched == 0 && missing == 0;
        }
    }

    static final Duration POLL = Duration.ofMillis(50);
    private static final Pattern AT = Pattern.compile(" at-us=(\\d+)");
    private static final Pattern WRITTEN = Pattern.compile(" written=(\\d+)");
    private static final Pattern SUBTASK = Pattern.compile(" subtask=(\\d+)");
    private static final Pattern CHECKED = Pattern.compile(" checked=(\\d+) mismatched=(\\d+) missing=(\\d+)");

    private DuraflowLargeStateRuns() {
    }

    /**
     * Runs the part. Adds to {@code wrong} what is not exact.
     */
    static Result run(long stateBytes, int valueBytes, int parallelism, Path dir, List<String> wrong)
            throws Exception {
        long keys = LargeStateRecords.keysFor(stateBytes, valueBytes);
        Files.createDirectories(dir);
        StringBuilder lean = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("/org/apache/flink/") && !entry.contains("/flink/") && !entry.contains("/com/ververica/")) {
                lean.append(lean.length() == 0 ? "" : File.pathSeparator).append(entry);
            }
        }
        System.setProperty("duraflow.classpath", lean.toString());
        Path clusterDir = dir.resolve("cluster");
        LocalCluster cluster = new LocalCluster(clusterDir, Map.of(), line -> {});
        try {
            String address = cluster.start(2, 1, 0, Duration.ofSeconds(60));
            try (ClusterClient client = new ClusterClient(address)) {
                Result result = buildSavepointRestore(client, clusterDir, dir, keys, valueBytes, parallelism);
                System.out.printf(Locale.ROOT, "duraflow restore: %,.0f ms from submission to the last keyed subtask's"
                                + " first record (first subtask %,.0f ms); checked %,d values: %,d wrong, %,d missing"
                                + " -> %s%n", result.restoreMillis(), result.firstSubtaskMillis(), result.checked(),
                        result.mismatched(), result.missing(), result.exact() ? "exact" : "WRONG");
                if (!result.exact()) {
                    wrong.add("duraflow savepoint restore: written " + result.written() + " of " + keys + " keys, checked "
                            + result.checked() + ", " + result.mismatched() + " wrong, " + result.missing() + " missing");
                }
                return result;
            }
        } finally {
            cluster.stop();
        }
    }

    private static Result buildSavepointRestore(ClusterClient client, Path clusterDir, Path dir, long keys,
            int valueBytes, int parallelism) throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "10min");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        config.putAll(StateBackendBenchmark.DURAFLOW_ROCKSDB);
        Map<String, String> params = new LinkedHashMap<>();
        params.put("keys", Long.toString(keys));
        params.put("value-bytes", Integer.toString(valueBytes));
        params.put("parallelism", Integer.toString(parallelism));

        params.put("mode", "build");
        Map<String, Integer> logsBefore = logSizes(clusterDir);
        long buildStart = System.nanoTime();
        String build = "large-state-build";
        client.submit(SubmitJobRequest.newBuilder().setJobId(build).setJobClass(LargeStateJob.class.getName())
                .putAllParams(params).putAllConfig(config).setParallelism(parallelism).build());
        List<String> built;
        while ((built = linesSince(clusterDir, logsBefore, LargeStateJob.StoreOrCheck.BUILT_LINE)).size() < parallelism) {
            failIfEnded(client, build, clusterDir);
            Thread.sleep(POLL.toMillis());
        }
        long buildMillis = (System.nanoTime() - buildStart) / 1_000_000;
        long written = 0;
        for (String line : built) {
            written += number(WRITTEN, line);
        }
        System.out.printf(Locale.ROOT, "duraflow built %,d keys (%,d written) in %,d ms; taking a savepoint%n", keys,
                written, buildMillis);
        long savepointStart = System.nanoTime();
        Path savepoint = SavepointCalls.savepoint(client, build, dir.resolve("savepoints"));
        long savepointMillis = (System.nanoTime() - savepointStart) / 1_000_000;
        client.cancel(build);
        awaitEnded(client, build);
        long savepointBytes = bytesUnder(savepoint);
        System.out.printf(Locale.ROOT, "duraflow savepoint %s: %,.1f MB in %,d ms; restoring%n", savepoint,
                savepointBytes / 1e6, savepointMillis);

        params.put("mode", "restore");
        logsBefore = logSizes(clusterDir);
        String restored = "large-state-restore";
        long restoreStartMicros = nowMicros();
        SavepointCalls.submitFrom(client, SubmitJobRequest.newBuilder().setJobId(restored)
                .setJobClass(LargeStateJob.class.getName()).putAllParams(params).putAllConfig(config)
                .setParallelism(parallelism).build(), savepoint);
        while (checked(linesSince(clusterDir, logsBefore, LargeStateJob.StoreOrCheck.CHECKED_LINE))[0] < keys) {
            failIfEnded(client, restored, clusterDir);
            Thread.sleep(POLL.toMillis());
        }
        client.cancel(restored);
        awaitEnded(client, restored);
        List<Long> firsts = new ArrayList<>();
        for (String line : linesSince(clusterDir, logsBefore, LargeStateJob.StoreOrCheck.FIRST_LINE)) {
            firsts.add(number(AT, line));
        }
        long[] totals = checked(linesSince(clusterDir, logsBefore, LargeStateJob.StoreOrCheck.CHECKED_LINE));
        long last = firsts.stream().mapToLong(Long::longValue).max().orElse(restoreStartMicros);
        long first = firsts.stream().mapToLong(Long::longValue).min().orElse(restoreStartMicros);
        if (firsts.size() != parallelism) {
            throw new IllegalStateException("restored job: " + firsts.size() + " keyed subtasks logged a first record,"
                    + " expected " + parallelism + " (logs: " + clusterDir.resolve("log") + ")");
        }
        return new Result(keys, buildMillis, savepointMillis, savepointBytes, (last - restoreStartMicros) / 1000.0,
                (first - restoreStartMicros) / 1000.0, written, totals[0], totals[1], totals[2]);
    }

    /**
     * The savepoint operations, the only calls this benchmark needs beyond submit and cancel:
     * {@code TriggerSavepoint} (what {@code duraflow savepoint ID DIR} sends) and a submission with
     * restore settings (what {@code duraflow run --from-savepoint PATH} sends, no-claim mode).
     */
    static final class SavepointCalls {
        private SavepointCalls() {
        }

        /** Takes a savepoint of {@code jobId} under {@code dir}, waiting for it; returns its directory. */
        static Path savepoint(ClusterClient client, String jobId, Path dir) {
            TriggerSavepointResponse response = client.triggerSavepoint(TriggerSavepointRequest.newBuilder()
                    .setJobId(jobId).setTargetDirectory(dir.toString()).build());
            String path = response.getPath();
            return path.startsWith("file:") ? Path.of(URI.create(path)) : Path.of(path);
        }

        /** Submits {@code request} restored from {@code savepoint} in no-claim mode. */
        static void submitFrom(ClusterClient client, SubmitJobRequest request, Path savepoint) {
            client.submit(request.toBuilder().setRestore(RestoreSettingsData.newBuilder()
                    .setPath(savepoint.toString())).build());
        }
    }

    /** checked, mismatched, missing: the latest line of each subtask, summed. */
    private static long[] checked(List<String> lines) {
        Map<Long, long[]> bySubtask = new TreeMap<>();
        for (String line : lines) {
            Matcher m = CHECKED.matcher(line);
            if (m.find()) {
                long[] figures = {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
                bySubtask.merge(number(SUBTASK, line), figures, (a, b) -> b[0] >= a[0] ? b : a);
            }
        }
        long[] totals = new long[3];
        for (long[] figures : bySubtask.values()) {
            for (int i = 0; i < 3; i++) {
                totals[i] += figures[i];
            }
        }
        return totals;
    }

    private static void failIfEnded(ClusterClient client, String jobId, Path clusterDir) {
        JobStatus status = client.status(jobId);
        if (JobRunner.isTerminal(status.getState())) {
            throw new IllegalStateException("benchmark job " + jobId + " ended " + status.getState() + ": "
                    + status.getFailure() + " (logs: " + clusterDir.resolve("log") + ")");
        }
    }

    private static void awaitEnded(ClusterClient client, String jobId) throws InterruptedException {
        while (!JobRunner.isTerminal(client.status(jobId).getState())) {
            Thread.sleep(POLL.toMillis());
        }
    }

    private static Map<String, Integer> logSizes(Path clusterDir) throws IOException {
        Map<String, Integer> sizes = new TreeMap<>();
        for (Map.Entry<String, List<String>> log : logs(clusterDir).entrySet()) {
            sizes.put(log.getKey(), log.getValue().size());
        }
        return sizes;
    }

    private static Map<String, List<String>> logs(Path clusterDir) throws IOException {
        Map<String, List<String>> logs = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(clusterDir.resolve("log"), "taskmanager-*.log")) {
            for (Path file : files) {
                logs.put(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
            }
        }
        return logs;
    }

    /** The TaskManagers' log lines containing {@code marker} written after {@code before}. */
    private static List<String> linesSince(Path clusterDir, Map<String, Integer> before, String marker)
            throws IOException {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, List<String>> log : logs(clusterDir).entrySet()) {
            List<String> all = log.getValue();
            int skip = Math.min(before.getOrDefault(log.getKey(), 0), all.size());
            for (String line : all.subList(skip, all.size())) {
                if (line.contains(marker)) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    private static long number(Pattern pattern, String line) {
        Matcher m = pattern.matcher(line);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in log line: " + line);
        }
        return Long.parseLong(m.group(1));
    }

    private static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static long nowMicros() {
        return java.time.temporal.ChronoUnit.MICROS.between(java.time.Instant.EPOCH, java.time.Instant.now());
    }
}

package io.duraflow.bench;

import io.duraflow.api.types.Tuple3;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.client.CollectedResults;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Duraflow's side of {@link StreamingBenchmark}: the runs on a local cluster and how they are
 * measured. See docs/design/benchmarks.md#duraflowstreamingruns.
 */
final class DuraflowStreamingRuns implements AutoCloseable {
    /** One run's figures. recoveryMillis and recordsReplayed are -1 without a failure. */
    record Run(boolean failureInjected, long records, long jobMillis, double recordsPerSecond, int checkpointsCompleted,
            int checkpointsFailed, List<String> checkpointFailureReasons, long checkpointMedianMillis,
            long checkpointMaxMillis, long checkpointMedianBytes, long keysEmitted, long sumOfSums,
            List<String> problems, int restarts, double recoveryMillis, long recordsReplayed,
            double taskManagerCpuNanosPerRecord, List<CheckpointSummary> completedCheckpoints) {
        boolean exact() {
            return problems.isEmpty();
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "%s: %,d records in %,d ms = %,.0f records/s | CPU %,.0f ns per"
                            + " record (the TaskManager processes, user + system)",
                    failureInjected ? "failure run" : "run", records, jobMillis, recordsPerSecond,
                    taskManagerCpuNanosPerRecord));
            lines.add(String.format(Locale.ROOT, "checkpoints: %d completed, %d failed | duration median %,d ms,"
                            + " max %,d ms | size %,.2f MB (median)", checkpointsCompleted, checkpointsFailed,
                    checkpointMedianMillis, checkpointMaxMillis, checkpointMedianBytes / 1e6));
            if (!checkpointFailureReasons.isEmpty()) {
                lines.add("failed checkpoints: " + String.join(" | ", checkpointFailureReasons));
            }
            lines.add(String.format(Locale.ROOT, "exactness: %,d keys, sum of sums %,d (expected %,d) -> %s",
                    keysEmitted, sumOfSums, StreamingKeyedSum.expectedSumOfSums(records),
                    exact() ? "exact" : "WRONG: " + problems));
            if (failureInjected) {
                lines.add(String.format(Locale.ROOT, "after the task exception: records flow again %.0f ms later"
                                + " (throw -> first record the keyed function processes in a restarted attempt),"
                                + " %,d records replayed, %d restart(s)", recoveryMillis, recordsReplayed,
                        restarts));
            }
            return lines;
        }
    }

    static final Duration POLL = Duration.ofMillis(100);

    private final Path workDir;
    private final Path checkpointDir;
    private final LocalCluster cluster;
    private final ClusterClient client;
    private final int parallelism;
    private final Map<String, String> stateConfig;
    private int jobs;

    private DuraflowStreamingRuns(Path workDir, LocalCluster cluster, ClusterClient client, int parallelism,
            Map<String, String> stateConfig) {
        this.workDir = workDir;
        this.checkpointDir = workDir.resolve("checkpoints");
        this.cluster = cluster;
        this.client = client;
        this.parallelism = parallelism;
        this.stateConfig = Map.copyOf(stateConfig);
    }

    /**
     * Starts the cluster: 1 JobManager and {@code taskManagers} TaskManagers with the slots the
     * job's 2 x {@code parallelism} tasks need between them (Duraflow shares no slots), Duraflow's
     * class path only (no Flink jars).
     */
    static DuraflowStreamingRuns start(int parallelism, int taskManagers) throws Exception {
        int slots = Math.max(2, (2 * parallelism + taskManagers - 1) / taskManagers);
        return start(parallelism, Map.of(), taskManagers, Map.of("taskmanager.slots", Integer.toString(slots)));
    }

    /**
     * Starts the cluster like {@link #start(int, int)} with 2 TaskManagers; every job gets {@code
     * stateConfig} on top of its configuration (for {@link StateBackendBenchmark}: {@code
     * state.backend.type: rocksdb}, ...).
     */
    static DuraflowStreamingRuns start(int parallelism, Map<String, String> stateConfig) throws Exception {
        return start(parallelism, stateConfig, 2, Map.of());
    }

    /**
     * Starts a cluster of 1 JobManager and {@code taskManagers} TaskManagers with {@code
     * clusterConfig} (e.g. {@code taskmanager.slots}), otherwise like {@link #start(int, Map)}.
     * The cluster's processes get this JVM's class path without Flink's jars, Flink's RocksDB and
     * the in-process HDFS's server jar ({@code hadoop-client-minicluster}).
     */
    static DuraflowStreamingRuns start(int parallelism, Map<String, String> stateConfig, int taskManagers,
            Map<String, String> clusterConfig) throws Exception {
        return start(parallelism, stateConfig, taskManagers, clusterConfig, LocalCluster.DEFAULT_TASK_MANAGER_JVM_OPTIONS);
    }

    /** {@link #start(int, Map, int, Map)} with the TaskManagers' JVM options. */
    static DuraflowStreamingRuns start(int parallelism, Map<String, String> stateConfig, int taskManagers,
            Map<String, String> clusterConfig, String taskManagerJvmOptions) throws Exception {
        StringBuilder lean = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            // Flink's jars, and Flink's RocksDB (frocksdbjni, com/ververica), never on a Duraflow class path.
            if (!entry.contains("/org/apache/flink/") && !entry.contains("/flink/") && !entry.contains("/com/ververica/")
                    && !entry.contains("hadoop-client-minicluster")) {
                lean.append(lean.length() == 0 ? "" : java.io.File.pathSeparator).append(entry);
            }
        }
        String extra = System.getProperty("bench.duraflow-extra-classpath", "");
        if (!extra.isEmpty()) {
            lean.append(java.io.File.pathSeparator).append(extra);
        }
        System.setProperty("duraflow.classpath", lean.toString());
        Path workDir = Files.createTempDirectory("duraflow-streaming-bench-");
        // Flink's processes run at the default priority, and so do Duraflow's TaskManagers here: under
        // the local cluster's nice 5 they lost the cores to the Kafka broker's threads.
        LocalCluster cluster = new LocalCluster(workDir, clusterConfig, line -> {})
                .taskManagerJvmOptions(taskManagerJvmOptions).taskManagerNice(0);
        try {
            String address = cluster.start(taskManagers, 1, 0, Duration.ofSeconds(Long.getLong("bench.cluster-start-seconds", 180)));
            return new DuraflowStreamingRuns(workDir, cluster, new ClusterClient(address), parallelism, stateConfig);
        } catch (Exception e) {
            cluster.stop();
            throw e;
        }
    }

    /** The job's configuration: streaming, a checkpoint every second, heap state, restarts at once. */
    private Map<String, String> jobConfig(Map<String, String> extraConfig) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "1s");
        config.put("execution.checkpointing.dir", checkpointDir.toString());
        config.put("state.backend.type", "heap");
        config.put("restart-strategy.type", "fixed-delay");
        config.put("restart-strategy.fixed-delay.attempts", "3");
        config.put("restart-strategy.fixed-delay.delay", "0s");
        config.putAll(stateConfig);
        config.putAll(extraConfig);
        return config;
    }

    /** Runs the bounded keyed sum, with attempt 0 throwing at index records / 2 when {@code failHalfway}. */
    Run run(long records, long keys, boolean failHalfway) throws Exception {
        return run(records, keys, failHalfway, Map.of());
    }

    /**
     * Runs the bounded keyed sum like {@link #run(long, long, boolean)} with {@code extraConfig} on
     * top of the job's configuration (e.g. file merging, another {@code execution.checkpointing.dir}).
     */
    Run run(long records, long keys, boolean failHalfway, Map<String, String> extraConfig) throws Exception {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("records", Long.toString(records));
        params.put("keys", Long.toString(keys));
        if (failHalfway) {
            params.put("fail-at", Long.toString(records / 2));
        }
        String jobId = "streaming-bench-" + (++jobs);
        Map<String, List<String>> logsBefore = taskManagerLogs();
        long cpuBefore = taskManagerCpuNanos();
        client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(StreamingKeyedSum.class.getName())
                .putAllParams(params).putAllConfig(jobConfig(extraConfig)).setParallelism(parallelism).build());
        Map<Long, CheckpointSummary> checkpoints = new TreeMap<>();
        JobStatus status;
        while (true) {
            status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                break;
            }
            CheckpointTally.poll(client, jobId, checkpoints);
            Thread.sleep(POLL.toMillis());
        }
        if (status.getState() != JobState.JOB_FINISHED) {
            throw new IllegalStateException("benchmark job " + jobId + " ended " + status.getState() + ": "
                    + status.getFailure() + " (logs: " + workDir.resolve("log") + ")");
        }
        long cpuNanos = taskManagerCpuNanos() - cpuBefore;
        JobResult result = client.result(jobId);
        List<Tuple3<Long, Long, Long>> sums = new ArrayList<>();
        for (Object record : CollectedResults.decode(result, JobPlans.build(StreamingKeyedSum.class.getName(), params,
                parallelism)).getOrDefault(StreamingKeyedSum.RESULT, List.of())) {
            @SuppressWarnings("unchecked")
            Tuple3<Long, Long, Long> sum = (Tuple3<Long, Long, Long>) record;
            sums.add(sum);
        }
        List<String> problems = StreamingKeyedSum.verify(sums, records, keys);
        long sumOfSums = sums.stream().mapToLong(Tuple3::f1).sum();
        long keysEmitted = sums.stream().map(Tuple3::f0).distinct().count();

        List<Long> durations = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        int failed = 0;
        Set<String> reasons = new LinkedHashSet<>();
        List<CheckpointSummary> completed = new ArrayList<>();
        for (CheckpointSummary c : checkpoints.values()) {
            if (c.getStatus().equals("COMPLETED")) {
                completed.add(c);
                durations.add(c.getDurationMs());
                sizes.add(c.getStateSizeBytes());
            } else if (c.getStatus().equals("FAILED")) {
                failed++;
                if (reasons.size() < 3) {
                    reasons.add(c.getFailureReason() + ": " + c.getFailureMessage());
                }
            }
        }
        long jobMillis = status.getEndedAtMs() - status.getSubmittedAtMs();
        double recoveryMillis = -1;
        long replayed = -1;
        if (failHalfway) {
            List<String> lines = newLines(logsBefore, taskManagerLogs());
            recoveryMillis = recoveryMillis(lines);
            replayed = processed(lines) - records;
        }
        return new Run(failHalfway, records, jobMillis, records * 1000.0 / jobMillis, durations.size(), failed,
                List.copyOf(reasons), median(durations), durations.stream().max(Comparator.naturalOrder()).orElse(0L),
                median(sizes), keysEmitted, sumOfSums, problems, status.getRestarts(), recoveryMillis, replayed,
                cpuNanos < 0 ? Double.NaN : (double) cpuNanos / records, List.copyOf(completed));
    }

    /**
     * Runs the keyed sum endlessly at {@code rate} records/s for {@code duration}, sampling the
     * TaskManagers' network memory in use every heartbeat, then cancels it. Returns the lines to print.
     */
    List<String> throttled(long keys, long rate, Duration duration) throws Exception {
        String jobId = "streaming-bench-" + (++jobs);
        client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(StreamingKeyedSum.class.getName())
                .putAllParams(Map.of("records", "0", "keys", Long.toString(keys), "rate", Long.toString(rate)))
                .putAllConfig(jobConfig(Map.of())).setParallelism(parallelism).build());
        List<String> lines = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long maxInUse = 0;
        long total = 0;
        long nextSample = start;
        StringBuilder samples = new StringBuilder();
        while (System.nanoTime() < end) {
            JobStatus status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                throw new IllegalStateException("throttled job ended " + status.getState() + ": " + status.getFailure());
            }
            if (System.nanoTime() >= nextSample) {
                long inUse = 0;
                total = 0;
                List<String> perTm = new ArrayList<>();
                for (TaskManagerInfo tm : client.overview().getTaskManagersList()) {
                    inUse += tm.getNetworkBytesInUse();
                    total += tm.getNetworkBytesTotal();
                    perTm.add(kib(tm.getNetworkBytesInUse()));
                }
                maxInUse = Math.max(maxInUse, inUse);
                samples.append(String.format(Locale.ROOT, "%n  t=%4.1f s: %s KiB (per TaskManager: %s)",
                        (System.nanoTime() - start) / 1e9, kib(inUse), String.join(" + ", perTm)));
                nextSample += Duration.ofSeconds(1).toNanos();
            }
            Thread.sleep(50);
        }
        JobStatus status = client.status(jobId);
        double inRate = status.getVerticesList().stream().filter(v -> v.getName().contains("Sum per key"))
                .mapToDouble(v -> v.getRates().getRecordsInPerSecond()).sum();
        client.cancel(jobId);
        lines.add(String.format(Locale.ROOT, "throttled run (rate %,d records/s, %d s; keyed function reads %,.0f"
                        + " records/s): network memory in use, all TaskManagers, sampled every second%s",
                rate, duration.toSeconds(), inRate, samples));
        lines.add(String.format(Locale.ROOT, "throttled run: network memory in use at most %s KiB of %s KiB"
                + " configured (%.1f %%)", kib(maxInUse), kib(total), total == 0 ? 0 : 100.0 * maxInUse / total));
        return lines;
    }

    /**
     * CPU time (user + system) the TaskManager processes used so far, from {@code /proc/<pid>/stat}
     * in clock ticks of 10 ms; -1 where there is no {@code /proc}. Less sensitive than records/s to
     * other load on the machine, so it compares runs on a busy machine.
     */
    long taskManagerCpuNanos() {
        long ticks = 0;
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(workDir.resolve("pids"), "taskmanager-*.pid")) {
            for (Path pid : pids) {
                String stat = Files.readString(Path.of("/proc", Files.readString(pid).trim(), "stat"));
                // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return ticks * 10_000_000L;
    }

    /** The client of the running cluster, for jobs other than the keyed sum ({@link NexmarkBenchmark}). */
    ClusterClient client() {
        return client;
    }

    /** Where the jobs' checkpoints go ({@code execution.checkpointing.dir}). */
    Path checkpointDir() {
        return checkpointDir;
    }

    /** The cluster's work directory (logs, pid files). */
    Path workDir() {
        return workDir;
    }

    private static String kib(long bytes) {
        return String.format(Locale.ROOT, "%,d", bytes >> 10);
    }

    // ---------------------------------------------------------------- the failure run's log lines

    private static final Pattern AT = Pattern.compile(" at-us=(\\d+)");
    private static final Pattern RECORDS = Pattern.compile(" records=(\\d+)");

    private Map<String, List<String>> taskManagerLogs() throws IOException {
        Map<String, List<String>> logs = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(workDir.resolve("log"), "taskmanager-*.log")) {
            for (Path file : files) {
                logs.put(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
            }
        }
        return logs;
    }

    /** The keyed function's lines logged since {@code before}. */
    private static List<String> newLines(Map<String, List<String>> before, Map<String, List<String>> after) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, List<String>> log : after.entrySet()) {
            List<String> all = log.getValue();
            int skip = before.getOrDefault(log.getKey(), List.of()).size();
            for (String line : all.subList(Math.min(skip, all.size()), all.size())) {
                if (line.contains("sum-per-key ")) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    /** From the injected throw to the first record a restarted attempt processed; -1 if either is missing. */
    static double recoveryMillis(List<String> lines) {
        long thrown = Long.MAX_VALUE;
        long resumed = Long.MAX_VALUE;
        for (String line : lines) {
            Matcher at = AT.matcher(line);
            if (!at.find()) {
                continue;
            }
            long micros = Long.parseLong(at.group(1));
            if (line.contains(StreamingKeyedSum.SumPerKey.FAILURE_LINE)) {
                thrown = Math.min(thrown, micros);
            } else if (line.contains(StreamingKeyedSum.SumPerKey.RESUMED_LINE)) {
                resumed = Math.min(resumed, micros);
            }
        }
        return thrown == Long.MAX_VALUE || resumed == Long.MAX_VALUE ? -1 : (resumed - thrown) / 1000.0;
    }

    /** Records the keyed function processed over all its attempts. */
    static long processed(List<String> lines) {
        long processed = 0;
        for (String line : lines) {
            if (line.contains(StreamingKeyedSum.SumPerKey.PROCESSED_LINE)) {
                Matcher records = RECORDS.matcher(line);
                if (records.find()) {
                    processed += Long.parseLong(records.group(1));
                }
            }
        }
        return processed;
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    @Override
    public void close() throws Exception {
        try {
            client.close();
            cluster.stop();
        } finally {
            try (Stream<Path> paths = Files.walk(checkpointDir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            } catch (java.nio.file.NoSuchFileException ignored) {
                // no checkpoint written
            }
        }
    }
}

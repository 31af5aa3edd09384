package io.duraflow.cli.demo;

import io.duraflow.cli.CliException;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.TaskRuns;
import io.duraflow.examples.SnapshotChangelogJob;
import io.duraflow.examples.cdc.CdcFiles;
import io.duraflow.examples.cdc.SnapshotChangelogSource;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * 'duraflow demo checkpoint-rejection': a local cluster (a JobManager, two TaskManagers) runs
 * {@link SnapshotChangelogJob} in streaming mode with a checkpoint every second: a generated table
 * read in chunks that decline checkpoints while open (soft failures, "not now"), then its change
 * log, into the exactly-once file sink. Part way through the table it SIGKILLs the TaskManager
 * that runs most of the job's tasks. It prints the checkpoints triggered, declined soft and hard,
 * failed otherwise and completed, the time from a chunk's end to the next completed checkpoint,
 * the job's restarts (only the SIGKILL's: soft declines never fail a job, even with {@code
 * tolerable-failed-checkpoints} 0, the default), and checks the committed output: every row and
 * change exactly once, nothing else (exit code 1 if not).
 *
 * <p>How it is measured: checkpoints from {@code duraflow checkpoints} polled every
 * {@value DemoRun#POLL_MS} ms (and the JobManager's log for the completed count); a chunk's end
 * from the readers' log line ({@link SnapshotChangelogSource#AVAILABLE_LOG}) written when a
 * chunk in which they declined a checkpoint ended. For each checkpoint that completed after soft
 * declines, the source became available when the last reader that had declined finished its
 * chunk: the latest such line between the last declined trigger and its own.
 *
 * <p>Public for the benchmark ({@code CheckpointRejectionBenchmark}), which runs it without the
 * crash and with other settings through {@link #measure()}.
 */
public final class CheckpointRejectionDemo {
    static final long DEFAULT_ROWS = 60_000;
    static final long DEFAULT_CHANGES = 20_000;
    static final String DEFAULT_CHUNK_ROWS = "500";
    static final String DEFAULT_RATE = "4000";
    static final int DEFAULT_PARALLELISM = 2;
    /** Up to this many records the check holds them all and names what is wrong; above, it compares digests. */
    static final long FULL_CHECK_RECORDS = 2_000_000;
    static final long MAX_RECORDS = 1_000_000_000;
    private static final int KILL_AFTER_COMPLETED = 3;
    private static final long KILL_AFTER_CHECKPOINT_MS = 500;
    private static final String TIME = "^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3})";
    private static final Pattern AVAILABLE = Pattern.compile(TIME + " .*"
            + Pattern.quote(SnapshotChangelogSource.AVAILABLE_LOG) + " subtask (\\d+) finished");

    /** What one run showed. */
    public record Figures(long triggered, long declinedSoft, long declinedHard, long failedOtherwise, long completed,
            long completedInLog, List<Long> availableToCompletedMs, int restarts, String endState, String failure,
            long records, long runningMs, List<String> problems) {
        public long medianAvailableToCompletedMs() {
            List<Long> sorted = availableToCompletedMs.stream().sorted().toList();
            return sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2);
        }

        public long maxAvailableToCompletedMs() {
            return availableToCompletedMs.stream().mapToLong(Long::longValue).max().orElse(-1);
        }

        /** Records per second while every task ran, from the first status that showed them all running. */
        public double recordsPerSecond() {
            return runningMs <= 0 ? 0 : records * 1000.0 / runningMs;
        }

        public boolean passed() {
            return endState.equals("FINISHED") && problems.isEmpty();
        }
    }

    private final Path workDir;
    private final Map<String, String> overrides;
    private final Map<String, String> params;
    private final int parallelism;
    private final boolean kill;
    private final PrintStream out;
    private static final java.util.concurrent.atomic.AtomicInteger RUNS = new java.util.concurrent.atomic.AtomicInteger();
    /** New for every run, so a work directory or cluster can be used again. */
    private final String jobId = "checkpoint-rejection-" + Long.toHexString(System.currentTimeMillis())
            + (RUNS.getAndIncrement() == 0 ? "" : "-" + RUNS.get());

    /**
     * @param params {@code rows} and {@code changes} (the generated files), the rest are the job's
     * @param kill whether to SIGKILL a TaskManager part way
     */
    public CheckpointRejectionDemo(Path workDir, Map<String, String> overrides, Map<String, String> params,
            int parallelism, boolean kill, PrintStream out) {
        this.workDir = workDir.toAbsolutePath().normalize();
        this.overrides = overrides;
        this.params = params;
        this.parallelism = parallelism > 0 ? parallelism : DEFAULT_PARALLELISM;
        this.kill = kill;
        this.out = out;
    }

    /** Runs the demo; exit code 0 if the job finished with exact output. */
    int run() throws Exception {
        return measure().passed() ? 0 : 1;
    }

    /** Starts a local cluster, runs the job on it ({@link #runOn}) and stops the cluster. */
    public Figures measure() throws Exception {
        prepare();
        Map<String, String> settings = clusterSettings(workDir, parallelism);
        settings.putAll(overrides);
        LocalCluster cluster = new LocalCluster(workDir, settings, out::println);
        StopOnExit stopOnExit = new StopOnExit(cluster);
        try {
            String address = cluster.start(2, 1, 0, Duration.ofSeconds(60));
            try (ClusterClient client = new ClusterClient(address)) {
                return runOn(cluster, client, settings);
            }
        } finally {
            int stopped = cluster.stop();
            stopOnExit.close();
            out.printf("Stopped %d processes (logs in %s)%n", stopped, workDir.resolve("log"));
        }
    }

    /**
     * The demo's cluster: fast failure detection, two slots per task (after the crash all tasks
     * run on one TaskManager), streaming mode, a checkpoint every second under {@code workDir}.
     */
    public static Map<String, String> clusterSettings(Path workDir, int parallelism) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("heartbeat.interval", "500ms");
        settings.put("heartbeat.timeout", "5s");
        settings.put("taskmanager.slots", Integer.toString(2 * Math.max(1, parallelism)));
        settings.put("execution.runtime-mode", "streaming");
        settings.put("execution.checkpointing.interval", "1s");
        settings.put("execution.checkpointing.dir", workDir.toAbsolutePath().resolve("checkpoints").toString());
        return settings;
    }

    /**
     * Generates the input, runs the job on a running cluster (made with {@link #clusterSettings}
     * or alike; two TaskManagers if it kills one) and reports.
     *
     * @param settings the cluster's settings and any given to this job: the job gets them as its
     *     own configuration, so options like {@code execution.checkpointing.soft-decline-retry-delay}
     *     can change from one run to the next on the same cluster
     */
    public Figures runOn(LocalCluster cluster, ClusterClient client, Map<String, String> settings) throws Exception {
        Input input = prepare();
        return runJob(cluster, client, settings, input.jobParams, input.rows, input.changes);
    }

    /** The job's parameters and its input files, generated once per size. */
    private record Input(Map<String, String> jobParams, long rows, long changes) {
    }

    /**
     * Checks the parameters, writes the input (unless it has this size already) and builds the
     * job's plan here, so a bad parameter is a one-line error before any process starts.
     */
    private Input prepare() throws IOException {
        Map<String, String> jobParams = new LinkedHashMap<>(params);
        long rows = count(jobParams.remove("rows"), DEFAULT_ROWS, "rows", 1);
        long changes = count(jobParams.remove("changes"), DEFAULT_CHANGES, "changes", 0);
        if (rows + changes > MAX_RECORDS) {
            throw new CliException("the demo runs at most " + MAX_RECORDS + " records; got --param rows="
                    + rows + " and changes=" + changes);
        }
        if (jobParams.containsKey("table") || jobParams.containsKey("changelog")) {
            throw new CliException("the demo generates its table and change log (--param rows=N, changes=M);"
                    + " run 'duraflow run snapshot-changelog' for files of your own");
        }
        Path input = Files.createDirectories(workDir.resolve("input"));
        Path table = input.resolve("table.csv");
        Path changelog = input.resolve("changes.csv");
        // Written once per size: a benchmark runs the same input many times.
        Path sizes = input.resolve("sizes");
        String size = rows + "," + changes;
        if (!Files.exists(sizes) || !Files.readString(sizes).equals(size)) {
            Files.deleteIfExists(sizes);
            CdcFiles.write(table, rows, changelog, changes);
            Files.writeString(sizes, size);
        }
        jobParams.put("table", table.toString());
        jobParams.put("changelog", changelog.toString());
        jobParams.putIfAbsent("chunk-rows", DEFAULT_CHUNK_ROWS);
        jobParams.putIfAbsent("rate", DEFAULT_RATE);
        jobParams.putIfAbsent("output", workDir.resolve("output").resolve(jobId).toString());
        Path output = Path.of(jobParams.get("output"));
        if (Files.isDirectory(output)) {
            try (var entries = Files.list(output)) {
                if (entries.findAny().isPresent()) {
                    throw new CliException("the output directory " + output + " is not empty; the exactly-once check"
                            + " reads every part file in it, so give --param output=DIR a new or empty one");
                }
            }
        }
        try {
            io.duraflow.plan.JobPlans.build(SnapshotChangelogJob.class.getName(), jobParams, parallelism);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        return new Input(jobParams, rows, changes);
    }

    private static long count(String text, long defaultValue, String name, long min) {
        if (text == null) {
            return defaultValue;
        }
        try {
            long value = Long.parseLong(text.trim().replace("_", ""));
            if (value >= min) {
                return value;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new CliException("--param " + name + " must be a whole number of at least " + min + ", got '" + text
                + "'");
    }

    private Figures runJob(LocalCluster cluster, ClusterClient client, Map<String, String> settings,
            Map<String, String> jobParams, long rows, long changes) throws Exception {
        Checkpoints checkpoints = new Checkpoints(client);
        DemoRun job = new DemoRun(client, jobId, workDir.resolve("log"),
                "for a slower job, raise --param rows or lower --param rate", checkpoints::poll);
        out.println();
        out.printf("1. SnapshotChangelog: a table of %,d rows in chunks of %s rows at %s rows/s, then %,d changes;"
                + " parallelism %d, a checkpoint every %s (soft-decline retry after %s, tolerable failed checkpoints"
                + " %s), exactly-once file sink into %s%n", rows, jobParams.get("chunk-rows"), jobParams.get("rate"),
                changes, parallelism, settings.get("execution.checkpointing.interval"),
                settings.getOrDefault("execution.checkpointing.soft-decline-retry-delay", "200ms"),
                settings.getOrDefault("execution.checkpointing.tolerable-failed-checkpoints", "0"), jobParams.get("output"));
        long submittedMs = System.currentTimeMillis();
        client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(SnapshotChangelogJob.class.getName())
                .putAllParams(jobParams).putAllConfig(jobConfig(settings)).setParallelism(parallelism).build());
        JobStatus running = job.await("all tasks running", s -> TaskRuns.running(s) == parallelism,
                Duration.ofMinutes(2));
        long allRunningMs = System.currentTimeMillis();
        long killedAtMs = Long.MAX_VALUE;
        if (kill) {
            job.await("the TaskManager crash", s -> checkpoints.completedCount() >= KILL_AFTER_COMPLETED,
                    Duration.ofMinutes(2));
            long lastCompletedMs = checkpoints.lastCompletedMs();
            job.await("the TaskManager crash", s -> System.currentTimeMillis() - lastCompletedMs
                    >= KILL_AFTER_CHECKPOINT_MS, Duration.ofMinutes(1));
            JobStatus before = job.poll();
            LocalTaskManagers.Victim victim = LocalTaskManagers.runningMostTasks(cluster, before);
            Map<TaskRuns.TaskKey, Integer> attempts = TaskRuns.attempts(before);
            killedAtMs = System.currentTimeMillis();
            victim.process().destroyForcibly();
            out.printf("2. SIGKILL of %s (pid %d, running %d of the job's %d tasks), %,d ms after checkpoint %d"
                    + " completed%n", victim.name(), victim.process().pid(), victim.tasks(), attempts.size(),
                    killedAtMs - lastCompletedMs, checkpoints.lastCompletedId());
            long runningAgain = job.awaitRunningAgain(attempts, true);
            out.printf("   every task running again %,d ms after the kill%n", runningAgain - killedAtMs);
        }
        JobStatus end = job.await("the job's end", s -> JobRunner.isTerminal(s.getState()), Duration.ofMinutes(10));
        // The last checkpoints end as the job does, often after the last poll: the JobManager's log has them.
        checkpoints.completeFromLog(workDir.resolve("log").resolve("jobmanager.log"), submittedMs);
        long endedMs = end.getEndedAtMs() > 0 ? end.getEndedAtMs() : System.currentTimeMillis();
        out.printf("%d. Job %s after %,d ms, %d restart%s%n", kill ? 3 : 2, JobRunner.stateName(end.getState()),
                endedMs - submittedMs, end.getRestarts(), end.getRestarts() == 1 ? "" : "s");
        if (!end.getFailure().isEmpty()) {
            out.println("   cause: " + end.getFailure());
        }
        Path output = Path.of(jobParams.get("output"));
        List<String> problems = end.getState() != JobState.JOB_FINISHED ? List.of("the job did not finish")
                : rows + changes <= FULL_CHECK_RECORDS
                        ? CdcFiles.check(CdcFiles.readOutput(output), CdcFiles.expected(rows, changes))
                        : CdcFiles.checkDigest(output, rows, changes);
        int explained = kill ? 1 : 0;
        if (end.getRestarts() > explained) {
            problems = new ArrayList<>(problems);
            problems.add("the job restarted " + end.getRestarts() + " times; " + (kill ? "the SIGKILL explains one"
                    : "nothing was killed") + ": see 'restarting every task' in " + workDir.resolve("log").resolve("jobmanager.log"));
        }
        List<Long> latencies = availableToCompleted(checkpoints.all(), availableTimes(submittedMs), killedAtMs);
        Figures figures = new Figures(checkpoints.all().size(), checkpoints.count("SNAPSHOT_UNAVAILABLE_SOFT"),
                checkpoints.count("SNAPSHOT_UNAVAILABLE_HARD"), checkpoints.failedOtherwise(),
                checkpoints.completedCount(), CheckpointWatch.completedInLogs(workDir.resolve("log"), jobId).size(),
                latencies, end.getRestarts(), JobRunner.stateName(end.getState()), end.getFailure(), rows + changes,
                endedMs - allRunningMs, problems);
        report(figures, jobParams.get("output"), settings);
        return figures;
    }

    /** The settings that are the job's own (execution.*), sent with it. */
    private static Map<String, String> jobConfig(Map<String, String> settings) {
        Map<String, String> config = new LinkedHashMap<>();
        settings.forEach((key, value) -> {
            if (key.startsWith("execution.")) {
                config.put(key, value);
            }
        });
        return config;
    }

    private void report(Figures f, String output, Map<String, String> settings) {
        out.println();
        out.printf("   checkpoints triggered:                  %5d%n", f.triggered());
        out.printf("     declined soft (a chunk was open):     %5d%n", f.declinedSoft());
        out.printf("     declined hard:                        %5d%n", f.declinedHard());
        out.printf("     failed otherwise (the crash):         %5d%n", f.failedOtherwise());
        out.printf("     completed:                            %5d (the JobManager's log: %d)%n", f.completed(),
                f.completedInLog());
        out.printf("   from a chunk's end to the next completed checkpoint (%d checkpoints after soft declines):"
                + " median %s, max %s%n", f.availableToCompletedMs().size(), ms(f.medianAvailableToCompletedMs()),
                ms(f.maxAvailableToCompletedMs()));
        int explained = kill ? 1 : 0;
        out.printf("   restarts: %d (%s)%s (tolerable-failed-checkpoints %s)%n", f.restarts(),
                kill ? "the SIGKILL explains 1" : "nothing was killed", f.restarts() <= explained
                        ? "; soft declines caused none" : "; MORE than the crash explains",
                settings.getOrDefault("execution.checkpointing.tolerable-failed-checkpoints", "0"));
        out.printf("   %,d records in %,d ms while all tasks ran: %,.0f records/s%n", f.records(), f.runningMs(),
                f.recordsPerSecond());
        out.println("   Checkpoints from 'duraflow checkpoints' polled every " + DemoRun.POLL_MS + " ms; a chunk's end"
                + " from the readers' log line when a chunk in which");
        out.println("   they declined ended (the source is available once the last of them ended).");
        out.println();
        if (f.problems().isEmpty()) {
            out.printf("   exactly-once check of %s: PASS (%,d records, each once, and nothing else%s)%n", output,
                    f.records(), f.records() <= FULL_CHECK_RECORDS ? "" : "; by count and digests");
        } else {
            out.printf("   exactly-once check of %s: FAIL%n", output);
            f.problems().forEach(problem -> out.println("     " + problem));
        }
    }

    private static String ms(long ms) {
        return ms < 0 ? "-" : String.format("%,d ms", ms);
    }

    /** When the readers finished a chunk in which they had declined (epoch ms, sorted), from the TaskManagers' logs. */
    private List<Long> availableTimes(long sinceEpochMs) throws IOException {
        List<Long> times = new ArrayList<>();
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(workDir.resolve("log"), "taskmanager*.log")) {
            for (Path log : logs) {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    Matcher matcher = AVAILABLE.matcher(line);
                    if (matcher.find()) {
                        LocalTaskManagers.timeOfDayAfter(matcher.group(1), sinceEpochMs).ifPresent(times::add);
                    }
                }
            }
        }
        times.sort(null);
        return times;
    }

    /**
     * For each checkpoint that completed after one or more soft declines: the time from when the
     * source became available (the latest of {@code availableMs} after the last soft-declined
     * trigger before it, up to its own trigger) to its completion. Pairs that span {@code
     * killedAtMs} are left out: the restored readers start between chunks.
     */
    static List<Long> availableToCompleted(Collection<CheckpointSummary> checkpointsById, List<Long> availableMs,
            long killedAtMs) {
        List<Long> latencies = new ArrayList<>();
        CheckpointSummary lastSoft = null;
        for (CheckpointSummary c : checkpointsById) {
            if (c.getStatus().equals("FAILED") && c.getFailureReason().equals("SNAPSHOT_UNAVAILABLE_SOFT")) {
                lastSoft = c;
            } else if (c.getStatus().equals("COMPLETED")) {
                if (lastSoft != null && (lastSoft.getTriggerMs() > killedAtMs || c.getTriggerMs() < killedAtMs)) {
                    long from = lastSoft.getTriggerMs();
                    Optional<Long> available = availableMs.stream()
                            .filter(t -> t > from && t <= c.getTriggerMs()).reduce((a, b) -> b);
                    long completedMs = c.getTriggerMs() + c.getDurationMs();
                    available.ifPresent(t -> latencies.add(Math.max(0, completedMs - t)));
                }
                lastSoft = null;
            }
        }
        return latencies;
    }

    /** The job's checkpoints as its JobMaster reports them, merged over polls by id. */
    private final class Checkpoints {
        private final ClusterClient client;
        private final TreeMap<Long, CheckpointSummary> byId = new TreeMap<>();

        Checkpoints(ClusterClient client) {
            this.client = client;
        }

        void poll() {
            try {
                for (CheckpointSummary c : client.checkpoints(jobId).getCheckpointsList()) {
                    CheckpointSummary known = byId.get(c.getCheckpointId());
                    if (known == null || known.getStatus().equals("IN_PROGRESS")) {
                        byId.put(c.getCheckpointId(), c);
                    }
                }
            } catch (CliException e) {
                // not running yet, or ended: its JobMaster is gone
            }
        }

        /**
         * Adds what the JobManager's log says of checkpoints the polls missed or saw in progress:
         * {@code Triggering checkpoint N of job ID}, {@code Completed checkpoint N of job ID},
         * {@code Job ID: checkpoint N failed (REASON, ...)}, with the lines' times.
         */
        void completeFromLog(Path log, long sinceEpochMs) throws IOException {
            String job = Pattern.quote(jobId);
            Pattern triggered = Pattern.compile(TIME + " .*Triggering checkpoint (\\d+) of job " + job + " ");
            Pattern completed = Pattern.compile(TIME + " .*Completed checkpoint (\\d+) of job " + job + " ");
            Pattern failed = Pattern.compile(TIME + " .*Job " + job + ": checkpoint (\\d+) failed \\((\\w+)");
            Map<Long, Long> triggerMs = new TreeMap<>();
            Map<Long, CheckpointSummary> ended = new TreeMap<>();
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                Matcher m;
                if ((m = triggered.matcher(line)).find()) {
                    long id = Long.parseLong(m.group(2));
                    LocalTaskManagers.timeOfDayAfter(m.group(1), sinceEpochMs).ifPresent(t -> triggerMs.put(id, t));
                } else if ((m = completed.matcher(line)).find() || (m = failed.matcher(line)).find()) {
                    long id = Long.parseLong(m.group(2));
                    Optional<Long> at = LocalTaskManagers.timeOfDayAfter(m.group(1), sinceEpochMs);
                    Long trigger = triggerMs.get(id);
                    if (at.isPresent() && trigger != null) {
                        boolean done = m.pattern() == completed;
                        ended.put(id, CheckpointSummary.newBuilder().setCheckpointId(id).setKind("CHECKPOINT")
                                .setStatus(done ? "COMPLETED" : "FAILED").setTriggerMs(trigger)
                                .setDurationMs(at.get() - trigger).setFailureReason(done ? "" : m.group(3)).build());
                    }
                }
            }
            ended.forEach((id, summary) -> {
                CheckpointSummary known = byId.get(id);
                if (known == null || known.getStatus().equals("IN_PROGRESS")) {
                    byId.put(id, summary);
                }
            });
        }

        Collection<CheckpointSummary> all() {
            return byId.values();
        }

        long count(String reason) {
            return byId.values().stream().filter(c -> c.getFailureReason().equals(reason)).count();
        }

        long failedOtherwise() {
            return byId.values().stream().filter(c -> c.getStatus().equals("FAILED")
                    && !c.getFailureReason().startsWith("SNAPSHOT_UNAVAILABLE_")).count();
        }

        long completedCount() {
            return byId.values().stream().filter(c -> c.getStatus().equals("COMPLETED")).count();
        }

        private Optional<CheckpointSummary> lastCompleted() {
            return byId.descendingMap().values().stream().filter(c -> c.getStatus().equals("COMPLETED")).findFirst();
        }

        long lastCompletedMs() {
            return lastCompleted().map(c -> c.getTriggerMs() + c.getDurationMs()).orElse(0L);
        }

        long lastCompletedId() {
            return lastCompleted().map(CheckpointSummary::getCheckpointId).orElse(0L);
        }
    }
}

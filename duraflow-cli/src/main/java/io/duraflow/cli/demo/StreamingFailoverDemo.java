package io.duraflow.cli.demo;

import io.duraflow.cli.CliException;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.TaskRuns;
import io.duraflow.config.Configuration;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * 'duraflow demo streaming-failover': a local high-availability cluster (ZooKeeper, two
 * JobManagers, two TaskManagers) runs {@link StreamingKeyedSum} in streaming mode with a
 * checkpoint every second and the exactly-once file sink; once a third of the records are read
 * it SIGKILLs the TaskManager that runs most of the job's tasks, once two thirds are read the
 * leader JobManager, and reports checkpoints, recovery times and replayed records, then checks
 * the committed output against an independent computation ({@link ExactOutput}). Through the
 * leader's crash the TaskManagers keep the tasks running and the new leader adopts them (issue
 * 14): nothing is restored or replayed; with {@code -D taskmanager.leader-loss.timeout=0} the
 * job restarts from its latest checkpoint instead, as it does after the TaskManager's crash.
 *
 * <p>How the figures are measured (printed with them): checkpoints from their {@code _metadata}
 * files, read while the job runs ({@link CheckpointWatch}), and from the JobManagers' logs; the
 * sources' position from the split state in each checkpoint; recovery from status polls every
 * 20 ms. The status RPC counts records only of finished tasks, so records replayed are the
 * records the sources had read past the restored checkpoint when they stopped: the position at
 * the stop is extrapolated from the last checkpoint with the throughput between the last two.
 */
final class StreamingFailoverDemo {
    static final String DEFAULT_RECORDS = "2500000";
    static final String DEFAULT_RATE = "100000";
    static final String DEFAULT_KEYS = "100000";
    static final int DEFAULT_PARALLELISM = 2;
    /** The demo's check keeps a sum and count per key in memory. */
    static final long MAX_KEYS = 10_000_000;
    private static final long POLL_MS = DemoRun.POLL_MS;
    /** How long after a checkpoint completed a crash comes: about half the interval, so some records are replayed. */
    private static final long KILL_AFTER_CHECKPOINT_MS = 500;

    private final Path workDir;
    private final Map<String, String> overrides;
    private final Map<String, String> params;
    private final int parallelism;
    private final PrintStream out;
    /** New for every run, so a work directory can be used again: its stores still hold the earlier job. */
    private final String jobId = "streaming-failover-" + Long.toHexString(System.currentTimeMillis());

    StreamingFailoverDemo(Path workDir, Map<String, String> overrides, Map<String, String> params, int parallelism,
            PrintStream out) {
        this.workDir = workDir.toAbsolutePath().normalize();
        this.overrides = overrides;
        this.params = params;
        this.parallelism = parallelism > 0 ? parallelism : DEFAULT_PARALLELISM;
        this.out = out;
    }

    int run() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("high-availability.zookeeper.session-timeout", "3s");
        settings.put("heartbeat.interval", "500ms");
        settings.put("heartbeat.timeout", "5s");
        // A streaming job needs a slot per task, and after the TaskManager crash all of them on the other one.
        settings.put("taskmanager.slots", Integer.toString(2 * parallelism));
        settings.put("execution.runtime-mode", "streaming");
        settings.put("execution.checkpointing.interval", "1s");
        settings.put("execution.checkpointing.dir", workDir.resolve("checkpoints").toString());
        settings.putAll(overrides);
        Map<String, String> jobParams = jobParams();
        long records = Long.parseLong(jobParams.get("records"));
        long keys = Long.parseLong(jobParams.get("keys"));
        LocalCluster cluster = new LocalCluster(workDir, settings, out::println);
        StopOnExit stopOnExit = new StopOnExit(cluster);
        try {
            cluster.start(2, 2, 0, Duration.ofSeconds(60));
            Configuration config = cluster.clientConfiguration();
            Path checkpoints = Path.of(settings.get("execution.checkpointing.dir"));
            try (HighAvailabilityServices ha = HighAvailabilityServices.create(config);
                    ClusterClient client = new ClusterClient(config, "", Duration.ofSeconds(60))) {
                LeaderRetrieval retrieval = ha.createLeaderRetrieval("");
                retrieval.start(leader -> {});
                Run job = new Run(client, new CheckpointWatch(checkpoints, jobId, records));
                out.println();
                out.printf("1. StreamingKeyedSum (%s) with parallelism %d, a checkpoint every %s, exactly-once file"
                        + " sink into %s%n", jobParams, parallelism, settings.get("execution.checkpointing.interval"),
                        jobParams.get("output"));
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                        .setJobClass(StreamingKeyedSum.class.getName()).putAllParams(jobParams)
                        .setParallelism(parallelism).build());
                long submittedMs = System.currentTimeMillis();

                List<Crash> crashes = new ArrayList<>();
                job.awaitKillPoint(records / 3, 0, "the TaskManager crash");
                crashes.add(killTaskManager(cluster, job));
                job.awaitKillPoint(2 * records / 3, crashes.get(0).runningAgainAtMs, "the JobManager crash");
                crashes.add(killLeader(cluster, job, retrieval));
                retrieval.close();

                JobStatus end = job.await("the job's end", s -> JobRunner.isTerminal(s.getState()), Duration.ofMinutes(5));
                long endedMs = System.currentTimeMillis();
                out.printf("4. Job %s after %,d ms%n", JobRunner.stateName(end.getState()), endedMs - submittedMs);
                if (!end.getFailure().isEmpty()) {
                    out.println("   cause: " + end.getFailure());
                }
                List<String> problems = end.getState() == JobState.JOB_FINISHED
                        ? ExactOutput.check(StreamingKeyedSum.readOutput(Path.of(jobParams.get("output"))), records,
                                keys)
                        : List.of("the job did not finish");
                report(job.watch, crashes, records, keys, jobParams.get("output"), problems);
                return end.getState() == JobState.JOB_FINISHED && problems.isEmpty() ? 0 : 1;
            }
        } finally {
            int stopped = cluster.stop();
            stopOnExit.close();
            out.printf("Stopped %d processes (logs in %s)%n", stopped, workDir.resolve("log"));
        }
    }

    /**
     * The job's parameters: the defaults, then the user's; checked before any process starts. The
     * output directory must be new or empty, as the check reads every part file in it.
     */
    private Map<String, String> jobParams() throws IOException {
        Map<String, String> jobParams = new LinkedHashMap<>();
        jobParams.put("records", DEFAULT_RECORDS);
        jobParams.put("keys", DEFAULT_KEYS);
        jobParams.put("rate", DEFAULT_RATE);
        jobParams.put("output", workDir.resolve("output").resolve(jobId).toString());
        jobParams.putAll(params);
        long records;
        long keys;
        try {
            records = Long.parseLong(jobParams.get("records"));
            keys = Long.parseLong(jobParams.get("keys"));
        } catch (NumberFormatException e) {
            throw new CliException("--param records and keys must be numbers, got " + jobParams);
        }
        if (records <= 0 || keys <= 0 || keys > MAX_KEYS) {
            throw new CliException("the demo needs --param records=N with N > 0 and keys=K with 0 < K <= " + MAX_KEYS
                    + ", got records=" + records + ", keys=" + keys);
        }
        Path output = Path.of(jobParams.get("output"));
        if (java.nio.file.Files.isDirectory(output)) {
            try (var entries = java.nio.file.Files.list(output)) {
                if (entries.findAny().isPresent()) {
                    throw new CliException("the output directory " + output + " is not empty; the exactly-once check"
                            + " reads every part file in it, so give --param output=DIR a new or empty one");
                }
            }
        }
        return jobParams;
    }

    /**
     * What one crash cost.
     *
     * @param killedAtMs when the SIGKILL was sent (epoch ms)
     * @param lastBefore the newest checkpoint that had completed at the kill
     * @param throughput records per ms the sources read between the last two checkpoints before the kill
     * @param newLeaderMs after the kill; -1 for a TaskManager crash
     * @param readingStoppedAtMs when the crashed run's sources stopped reading (epoch ms)
     * @param adopted            whether the new leader adopted every running task (nothing restored)
     */
    record Crash(long killedAtMs, CheckpointWatch.Seen lastBefore, double throughput, long newLeaderMs,
            long runningAgainAtMs, long readingStoppedAtMs, boolean adopted) {
    }

    private Crash killTaskManager(LocalCluster cluster, Run job) throws Exception {
        JobStatus before = job.poll();
        LocalTaskManagers.Victim victim = LocalTaskManagers.runningMostTasks(cluster, before);
        Map<TaskRuns.TaskKey, Integer> attempts = TaskRuns.attempts(before);
        Progress progress = job.progressAtKill();
        long killedAt = System.currentTimeMillis();
        victim.process().destroyForcibly();
        out.printf("2. SIGKILL of %s (pid %d, running %d of the job's %d tasks), %,d ms after checkpoint %d completed"
                + " with the sources at %,d records%n", victim.name(), victim.process().pid(), victim.tasks(),
                attempts.size(), killedAt - progress.last.completedMs(), progress.last.id(),
                progress.last.sourceRecordsRead());
        long runningAgain = job.awaitRunningAgain(attempts, true);
        out.printf("   every task running again %,d ms after the kill%n", runningAgain - killedAt);
        return new Crash(killedAt, progress.last, progress.throughput, -1, runningAgain, killedAt, false);
    }

    private Crash killLeader(LocalCluster cluster, Run job, LeaderRetrieval retrieval) throws Exception {
        JobStatus before = job.poll();
        Map<TaskRuns.TaskKey, Integer> attempts = TaskRuns.attempts(before);
        LeaderInfo leader = retrieval.awaitLeader(Duration.ofSeconds(5));
        ProcessHandle leaderProcess = cluster.processListeningOn(leader.address());
        Progress progress = job.progressAtKill();
        long killedAt = System.currentTimeMillis();
        leaderProcess.destroyForcibly();
        out.printf("3. SIGKILL of the leader JobManager %s (pid %d), %,d ms after checkpoint %d completed with the"
                + " sources at %,d records%n", leader.address(), leaderProcess.pid(), killedAt
                - progress.last.completedMs(), progress.last.id(), progress.last.sourceRecordsRead());
        LeaderInfo next;
        while ((next = retrieval.awaitLeader(Duration.ofSeconds(30))) == null || next.equals(leader)) {
            Thread.sleep(5);
        }
        long newLeader = System.currentTimeMillis() - killedAt;
        out.printf("   new leader %s after %,d ms%n", next.address(), newLeader);
        // The new leader adopts the tasks the TaskManagers kept, or restarts them from the
        // latest checkpoint (adoption off, or not provable): either way every task runs under it.
        long runningAgain = job.awaitRunningAgain(attempts, false);
        JobStatus after = job.poll();
        if (after.getTakenOverAtMs() > 0 && after.getLeaderElectedAtMs() > 0) {
            out.printf("   the new leader took the job over %,d ms after its election (the end of failure detection)%n",
                    after.getTakenOverAtMs() - after.getLeaderElectedAtMs());
        }
        int adopted = TaskRuns.adopted(after);
        if (adopted == attempts.size() && TaskRuns.attempts(after).equals(attempts)) {
            out.printf("   the new leader adopted all %d running tasks %,d ms after the kill: none restarted, no"
                    + " record read again%n", adopted, runningAgain - killedAt);
            return new Crash(killedAt, progress.last, progress.throughput, newLeader, runningAgain, killedAt, true);
        }
        out.printf("   every task running again %,d ms after the kill%n", runningAgain - killedAt);
        // Without a JobManager the tasks go on reading until their TaskManager gives them up.
        long stopped = LocalTaskManagers.lastGaveUpJobManager(cluster, killedAt).orElse(killedAt);
        return new Crash(killedAt, progress.last, progress.throughput, newLeader, runningAgain, stopped, false);
    }

    private void report(CheckpointWatch watch, List<Crash> crashes, long records, long keys, String output,
            List<String> problems) throws IOException {
        TreeSet<Long> logged = CheckpointWatch.completedInLogs(workDir.resolve("log"), jobId);
        TreeSet<Long> restored = CheckpointWatch.restoredInLogs(workDir.resolve("log"), jobId);
        out.println();
        out.println("   Times are from the SIGKILL; task states from status polls every " + POLL_MS + " ms; checkpoints"
                + " from their _metadata");
        out.println("   (trigger and completion times, the sources' position in their split state).");
        out.printf("   %-52s %20s %20s%n", "", "TaskManager crash", "JobManager crash");
        long replayedTotal = 0;
        String[][] cells = new String[8][crashes.size()];
        for (int i = 0; i < crashes.size(); i++) {
            Crash crash = crashes.get(i);
            Optional<CheckpointWatch.Seen> after = watch.firstTriggeredAfter(crash.killedAtMs);
            cells[0][i] = Integer.toString(watch.completedBy(crash.killedAtMs).size());
            cells[1][i] = crash.newLeaderMs < 0 ? "-" : String.format("%,d ms", crash.newLeaderMs);
            cells[3][i] = after.map(c -> String.format("%,d ms (chk %d)", c.completedMs() - crash.killedAtMs, c.id()))
                    .orElse("none");
            cells[7][i] = after.map(c -> String.format("%,d ms", c.completedMs() - crash.lastBefore.completedMs()))
                    .orElse("-");
            if (crash.adopted) {
                cells[2][i] = String.format("%,d ms (adopted)", crash.runningAgainAtMs - crash.killedAtMs);
                cells[4][i] = "none: tasks adopted";
                cells[5][i] = "-";
                cells[6][i] = "0";
                continue;
            }
            long restoredId = after.isEmpty() ? crash.lastBefore.id()
                    : restored.headSet(after.get().id()).stream().reduce((a, b) -> b).orElse(crash.lastBefore.id());
            CheckpointWatch.Seen from = watch.seen().getOrDefault(restoredId, crash.lastBefore);
            long replayed = replayed(crash.lastBefore, crash.throughput, crash.readingStoppedAtMs, from, records);
            replayedTotal += replayed;
            cells[2][i] = String.format("%,d ms", crash.runningAgainAtMs - crash.killedAtMs);
            cells[4][i] = String.format("chk %d: %,d", from.id(), from.sourceRecordsRead());
            cells[5][i] = String.format("%,d ms", crash.readingStoppedAtMs - from.triggeredMs());
            cells[6][i] = String.format("~%,d", replayed);
        }
        String[] labels = {"checkpoints completed before the crash",
            "time to a new leader",
            "time until every task ran again",
            "time to the first checkpoint after the crash",
            "restored from checkpoint, sources at (records)",
            "sources read from that checkpoint until they stopped",
            "records replayed (read again after the restore)",
            "pause in committed output (checkpoint to checkpoint)"};
        for (int row = 0; row < labels.length; row++) {
            StringBuilder line = new StringBuilder(String.format("   %-52s", labels[row] + ":"));
            for (String cell : cells[row]) {
                line.append(String.format(" %20s", cell));
            }
            out.println(line);
        }
        // Either source can miss one: a leader killed between a completion and its log line does not
        // log it, and the job's last checkpoint may be deleted with the job before a poll sees it.
        TreeSet<Long> completed = new TreeSet<>(logged);
        completed.addAll(watch.seen().keySet());
        out.printf("   checkpoints completed in total: %d (%d in the JobManager logs, %d seen on disk)%n",
                completed.size(), logged.size(), watch.seen().size());
        out.printf("   records read by all attempts: ~%,d for %,d records (+%.1f %%)%n", records + replayedTotal, records,
                100.0 * replayedTotal / records);
        out.println("   Records replayed: the sources' position when they stopped minus their position in the restored"
                + " checkpoint.");
        out.println("   The status RPC counts records of finished tasks only, so the position at the stop is extrapolated"
                + " with the");
        out.println("   sources' throughput between the last two checkpoints before the crash. They stopped at the kill"
                + " of the");
        out.println("   TaskManager, and when the TaskManagers gave up the killed JobManager (their logs). Adopted tasks"
                + " never stop:");
        out.println("   nothing is read again. Pause in committed output: from the last checkpoint completed before the"
                + " crash to");
        out.println("   the first one after it (the exactly-once sink makes output visible at each checkpoint).");
        out.println();
        if (problems.isEmpty()) {
            out.printf("   exactly-once check of %s: PASS (%,d keys, each once, with the count and sum of a plain loop"
                    + " over the %,d records, and nothing else)%n", output, Math.min(records, keys), records);
        } else {
            out.printf("   exactly-once check of %s: FAIL%n", output);
            problems.forEach(problem -> out.println("     " + problem));
        }
    }

    /**
     * Records the sources read before they stopped that the restored checkpoint does not hold,
     * so the restored run reads them again: their position at the stop, extrapolated from
     * checkpoint {@code last} (the newest before the kill) with {@code throughputPerMs}, minus
     * their position in {@code restored} (usually {@code last}; a newer one if it completed
     * after the kill), at most all {@code records}. Never negative.
     */
    static long replayed(CheckpointWatch.Seen last, double throughputPerMs, long stoppedAtMs,
            CheckpointWatch.Seen restored, long records) {
        double atStop = last.sourceRecordsRead() + throughputPerMs * Math.max(0, stoppedAtMs - last.triggeredMs());
        return Math.max(0, Math.min(records, Math.round(atStop)) - restored.sourceRecordsRead());
    }

    /** The sources' progress at the moment of a kill, as the checkpoints show it. */
    private record Progress(CheckpointWatch.Seen last, double throughput) {
    }

    /** The running job, polled: its status and its checkpoints ({@link DemoRun}). */
    private final class Run {
        private final DemoRun run;
        private final CheckpointWatch watch;

        Run(ClusterClient client, CheckpointWatch watch) {
            this.run = new DemoRun(client, jobId, workDir.resolve("log"),
                    "for a slower job, raise --param records or lower --param rate", watch::poll);
            this.watch = watch;
        }

        JobStatus poll() throws IOException {
            return run.poll();
        }

        JobStatus await(String what, Predicate<JobStatus> condition, Duration timeout)
                throws IOException, InterruptedException {
            return run.await(what, condition, timeout);
        }

        /**
         * Waits until the sources read {@code position} records as far as the checkpoints show,
         * with two checkpoints completed since {@code sinceMs} (for the throughput), then for
         * the next checkpoint and {@link #KILL_AFTER_CHECKPOINT_MS} after it.
         */
        void awaitKillPoint(long position, long sinceMs, String what) throws IOException, InterruptedException {
            await(what, s -> watch.seen().values().stream().filter(c -> c.triggeredMs() > sinceMs).count() >= 2
                    && watch.latest().get().sourceRecordsRead() >= position, Duration.ofMinutes(3));
            long latest = watch.latest().get().id();
            await(what, s -> watch.latest().get().id() > latest, Duration.ofMinutes(1));
            long completed = watch.latest().get().completedMs();
            await(what, s -> System.currentTimeMillis() - completed >= KILL_AFTER_CHECKPOINT_MS, Duration.ofMinutes(1));
        }

        Progress progressAtKill() {
            List<CheckpointWatch.Seen> seen = new ArrayList<>(watch.seen().values());
            CheckpointWatch.Seen last = seen.get(seen.size() - 1);
            CheckpointWatch.Seen previous = seen.get(seen.size() - 2);
            double throughput = (double) (last.sourceRecordsRead() - previous.sourceRecordsRead())
                    / Math.max(1, last.triggeredMs() - previous.triggeredMs());
            return new Progress(last, throughput);
        }

        long awaitRunningAgain(Map<TaskRuns.TaskKey, Integer> before, boolean newerAttempts)
                throws IOException, InterruptedException {
            return run.awaitRunningAgain(before, newerAttempts);
        }
    }
}

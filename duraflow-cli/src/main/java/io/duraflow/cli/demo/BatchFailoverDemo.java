package io.duraflow.cli.demo;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.TaskRuns;
import io.duraflow.client.CollectedResults;
import io.duraflow.config.Configuration;
import io.duraflow.examples.RecoveryDemo;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * 'duraflow demo batch-failover': a local high-availability cluster (ZooKeeper, two JobManagers,
 * two TaskManagers with two slots each) runs a multi-stage batch job twice, once undisturbed and
 * once with the leader JobManager killed (SIGKILL) after half of the source tasks finished, and
 * reports what the crash cost.
 */
final class BatchFailoverDemo {
    private final Path workDir;
    private final Map<String, String> overrides;
    private final Map<String, String> params;
    private final PrintStream out;

    BatchFailoverDemo(Path workDir, Map<String, String> overrides, Map<String, String> params, PrintStream out) {
        this.workDir = workDir;
        this.overrides = overrides;
        this.params = params;
        this.out = out;
    }

    int run() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("high-availability.zookeeper.session-timeout", "3s");
        settings.put("heartbeat.interval", "500ms");
        settings.put("heartbeat.timeout", "5s");
        settings.put("taskmanager.slots", "2");
        settings.putAll(overrides);
        LocalCluster cluster = new LocalCluster(workDir, settings, out::println);
        // Ctrl-C (or SIGTERM) during the demo must not leave its five processes running.
        Thread cleanup = new Thread(() -> {
            try {
                cluster.stop();
            } catch (Exception ignored) {
                // exiting anyway
            }
        }, "stop-demo-cluster");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            cluster.start(2, 2, 0, Duration.ofSeconds(60));
            Configuration config = cluster.clientConfiguration();
            Map<String, String> jobParams = new LinkedHashMap<>(Map.of("records", "1500000000", "sources", "8"));
            jobParams.putAll(params);
            JobGraph graph = JobPlans.build(RecoveryDemo.class.getName(), jobParams, 4);
            int sources = graph.vertex(0).parallelism();
            try (HighAvailabilityServices ha = HighAvailabilityServices.create(config);
                    ClusterClient client = new ClusterClient(config, "", Duration.ofSeconds(60))) {
                LeaderRetrieval retrieval = ha.createLeaderRetrieval("");
                retrieval.start(leader -> {});

                out.println();
                out.println("1. The job without a crash (" + jobParams + "):");
                long baselineStart = System.nanoTime();
                JobResult baseline = runToEnd(client, "demo-baseline", jobParams);
                long baselineMs = (System.nanoTime() - baselineStart) / 1_000_000;
                out.printf("   finished in %,d ms%n", baselineMs);

                out.println("2. The same job; the leader JobManager is killed once " + sources / 2 + " of " + sources
                        + " source tasks finished:");
                long start = System.nanoTime();
                String jobId = "demo-failover";
                client.submit(request(jobId, jobParams));
                JobStatus before;
                while (true) {
                    before = client.status(jobId);
                    if (finishedSubtasks(before, 0) >= sources / 2 || JobRunner.isTerminal(before.getState())) {
                        break;
                    }
                    Thread.sleep(20);
                }
                LeaderInfo leader = retrieval.awaitLeader(Duration.ofSeconds(5));
                ProcessHandle leaderProcess = cluster.processListeningOn(leader.address());
                // "Finished before the crash" is what the leader reported FINISHED last before the
                // kill, with each task's attempt number: a task that finishes after this status and
                // before the kill is in neither count.
                before = client.status(jobId);
                Map<TaskRuns.TaskKey, Integer> finishedBefore = TaskRuns.finishedAttempts(before);
                long killedAt = System.nanoTime();
                leaderProcess.destroyForcibly();
                out.printf("   SIGKILL of the leader %s (pid %d) with %d tasks finished%n", leader.address(),
                        leaderProcess.pid(), finishedBefore.size());
                LeaderInfo next;
                while ((next = retrieval.awaitLeader(Duration.ofSeconds(30))) == null || next.equals(leader)) {
                    Thread.sleep(5);
                }
                long leaderMs = (System.nanoTime() - killedAt) / 1_000_000;
                out.printf("   new leader %s after %,d ms%n", next.address(), leaderMs);
                long resumedMs;
                RecoverySeen seen = new RecoverySeen();
                while (true) {
                    JobStatus status = client.status(jobId);
                    seen.add(status);
                    if (TaskRuns.running(status) > 0 || JobRunner.isTerminal(status.getState())) {
                        resumedMs = (System.nanoTime() - killedAt) / 1_000_000;
                        break;
                    }
                    Thread.sleep(10);
                }
                JobStatus end;
                while (!JobRunner.isTerminal((end = client.status(jobId)).getState())) {
                    seen.add(end);
                    Thread.sleep(50);
                }
                seen.add(end);
                long totalMs = (System.nanoTime() - start) / 1_000_000;
                JobResult result = client.result(jobId);
                boolean same = CollectedResults.decode(result, graph).equals(CollectedResults.decode(baseline, graph))
                        && matchesIndependentComputation(result, graph, jobParams);
                List<TaskRuns.TaskKey> ranAgain = TaskRuns.ranAgain(finishedBefore, end);
                int rerun = rerunCount(finishedBefore.size(), ranAgain.size(), seen);
                out.println();
                out.printf("   job ended as %s with %s result as without the crash%n",
                        JobRunner.stateName(end.getState()), same ? "the same" : "a DIFFERENT");
                out.printf("   tasks finished before the crash:        %d%n", finishedBefore.size());
                out.printf("   of those, run again after the crash:    %d%s (goal: 0)%n", rerun,
                        ranAgain.isEmpty() ? "" : " " + ranAgain);
                out.printf("   tasks running at the crash, adopted:    %d (kept running by the TaskManagers; 0 with"
                        + " taskmanager.leader-loss.timeout=0)%n", adopted(end));
                out.printf("   time to a new leader:                   %,d ms%n", leaderMs);
                out.printf("   time until tasks were running again:    %,d ms after the kill, %,d ms after the new"
                        + " leader (goal: < 1,000 ms)%n", resumedMs, resumedMs - leaderMs);
                if (seen.takeOverMs >= 0) {
                    out.printf("   without a leader beyond detection:      %,d ms (from the new leader's election to its"
                            + " take-over of every task; goal: < 500 ms)%n", seen.takeOverMs);
                }
                out.printf("   total with the crash / without:          %,d ms / %,d ms (+%,d ms: the %,d ms to a new"
                        + " leader %+,d ms; goal: at most +2,000 ms)%n", totalMs, baselineMs, totalMs - baselineMs,
                        leaderMs, totalMs - baselineMs - leaderMs);
                retrieval.close();
                return end.getState() == JobState.JOB_FINISHED && same && rerun == 0 ? 0 : 1;
            }
        } finally {
            int stopped = cluster.stop();
            Runtime.getRuntime().removeShutdownHook(cleanup);
            out.printf("Stopped %d processes (logs in %s)%n", stopped, workDir.resolve("log"));
        }
    }

    /** The result against plain loops over the same numbers. */
    @SuppressWarnings("unchecked")
    private static boolean matchesIndependentComputation(JobResult result, JobGraph graph, Map<String, String> params) {
        long[] expected = RecoveryDemo.expected(Long.parseLong(params.get("records")),
                Long.parseLong(params.getOrDefault("keys", "10000")));
        Map<Long, Long> actual = new java.util.HashMap<>();
        for (Object record : CollectedResults.decode(result, graph).get(RecoveryDemo.RESULT)) {
            var pair = (io.duraflow.api.types.Tuple2<Long, Long>) record;
            actual.put(pair.f0(), pair.f1());
        }
        for (int bucket = 0; bucket < expected.length; bucket++) {
            if (expected[bucket] != actual.getOrDefault((long) bucket, 0L)) {
                return false;
            }
        }
        return true;
    }

    private static SubmitJobRequest request(String jobId, Map<String, String> params) {
        return SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(RecoveryDemo.class.getName())
                .putAllParams(params).setParallelism(4).build();
    }

    private static JobResult runToEnd(ClusterClient client, String jobId, Map<String, String> params)
            throws InterruptedException {
        client.submit(request(jobId, params));
        while (!JobRunner.isTerminal(client.status(jobId).getState())) {
            Thread.sleep(50);
        }
        return client.result(jobId);
    }

    /** Tasks the new leader adopted running. */
    private static long adopted(JobStatus status) {
        return status.getVerticesList().stream().flatMap(v -> v.getTasksList().stream())
                .filter(task -> task.getRecovery().equals("ADOPTED")).count();
    }

    /** Finished subtasks of one vertex. */
    private static int finishedSubtasks(JobStatus status, int vertex) {
        return (int) TaskRuns.finishedAttempts(status).keySet().stream().filter(task -> task.vertex() == vertex).count();
    }

    /** What the statuses of the new leader showed while the job ran under it. */
    static final class RecoverySeen {
        boolean running;
        int restoredTasks;
        /** From the new leader's election to its take-over, as its status says; -1 until seen. */
        long takeOverMs = -1;

        void add(JobStatus status) {
            if (takeOverMs < 0 && status.getTakenOverAtMs() > 0 && status.getLeaderElectedAtMs() > 0) {
                // Both times are the new leader's clock: its election ended failure detection.
                takeOverMs = status.getTakenOverAtMs() - status.getLeaderElectedAtMs();
            }
            if (status.getState() == JobState.JOB_RUNNING) {
                running = true;
                restoredTasks = Math.max(restoredTasks, status.getRestoredTasks());
            }
        }
    }

    /**
     * How many of the tasks that had finished before the crash ran again: those whose attempt
     * number went up. A new leader that falls back to running the job from the start numbers
     * attempts from 0 again, which attempt numbers cannot show; then fewer finished tasks were
     * kept than did not go up, and the difference ran again too. That is only known when the new
     * leader's status was seen while the job ran (a terminated job's status may not say how many
     * were kept).
     */
    static int rerunCount(int finishedBefore, int ranAgain, RecoverySeen seen) {
        int keptAtMost = finishedBefore - ranAgain;
        if (seen.running && seen.restoredTasks < keptAtMost) {
            return ranAgain + keptAtMost - seen.restoredTasks;
        }
        return ranAgain;
    }
}

package io.duraflow.bench;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.client.CollectedResults;
import io.duraflow.config.RuntimeMode;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How long a job's jar takes from {@code duraflow run app.jar} to every TaskManager: a job whose
 * jar holds {@code bench.jar-mb} MB (default 50) of incompressible data, at parallelism 4 on a
 * local cluster of separate processes, 1 JobManager and 4 TaskManagers of one slot each, so each
 * TaskManager runs one task and fetches the jar once. The processes run from {@code
 * duraflow-cli/target/lib}, the jars {@code bin/duraflow} uses.
 *
 * <p>A first job from a tiny jar warms the new cluster up (its first job loads classes and
 * compiles code; printed, not counted). Then each of {@code bench.repeats} rounds (default 3) runs
 * the job from a tiny jar (the baseline) and from the large one, each time with new bytes, so
 * nothing is cached, on the same cluster, and prints per jar (MB are MiB):
 * <ul>
 *   <li>upload: the client starts sending (after hashing the jar, as {@code duraflow run} does
 *       before it sends) until the JobManager accepted the job, which it does once the jar is
 *       received, checked and stored in the HA storage and the job's plan is built from it;
 *   <li>distribution: accepted until all 4 tasks are RUNNING, which each reports after its
 *       TaskManager fetched the jar from the leader, checked its SHA-256 and built the plan from
 *       it (a task that already FINISHED counts too; the status is polled every 5 ms);
 *   <li>each TaskManager's fetch, from its log: when it started and how long it took, in ms after
 *       the acceptance, which shows whether the 4 fetch together or one after another (the
 *       JobManager deploys the tasks as it answers, so a fetch can start a few ms "before" the
 *       client hears the answer);
 *   <li>the CPU time the JobManager and the TaskManagers used until all tasks ran, which does not
 *       depend on what else runs on the machine as the times do;
 *   <li>the job's result, checked: numbers 0..n-1 doubled, by a class from the jar.
 * </ul>
 *
 * <pre>
 *   ./mvnw -o -q install -DskipTests   (once: builds duraflow-cli/target/lib)
 *   ./mvnw -o -q -DskipTests -Pbench -pl duraflow-bench package -Dbench.main=io.duraflow.bench.JarDistributionBenchmark
 *   (arguments: -Dbench.jar-mb=50 -Dbench.repeats=3)
 * </pre>
 */
public final class JarDistributionBenchmark {
    private static final int TASK_MANAGERS = 4;
    private static final long NUMBERS = 100_000;
    private static final double MB = 1 << 20;
    /** How often the job's status is polled: often enough for the figures, seldom enough not to load the JobManager. */
    private static final long POLL_MS = 5;
    /** What a TaskManager logs once it fetched and checked a jar (TaskManagerJars). */
    private static final Pattern FETCHED = Pattern.compile(
            "^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*Fetched jar \\S+ of job (\\S+) \\((\\d+) bytes\\) in (\\d+) ms");

    /** A TaskManager's fetch of one jar, in ms after the job was accepted. */
    record Fetch(String taskManager, long startMs, long durationMs) {}

    /**
     * CPU time the JobManager and the TaskManagers (summed) used from the upload's start until all
     * tasks ran: what the jar cost them, whatever else ran on the machine at the time.
     */
    record Cpu(long jobManagerMs, long taskManagersMs) {}

    record Run(String label, long jarBytes, long hashMs, long uploadMs, long distributionMs, long jobMs,
            List<Fetch> fetches, Cpu cpu) {
        long totalMs() {
            return uploadMs + distributionMs;
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("duraflow.classpath", LauncherClassPath.jars());
        int jarMb = Integer.getInteger("bench.jar-mb", 50);
        int repeats = Math.max(1, Integer.getInteger("bench.repeats", 3));
        Duration startTimeout = Duration.ofSeconds(Long.getLong("bench.cluster-start-seconds", 180));
        System.out.printf("Jar distribution benchmark: a %d MB (MiB) job jar to %d TaskManagers of 1 slot, parallelism"
                + " %d, %d rounds, %d cores%n", jarMb, TASK_MANAGERS, TASK_MANAGERS, repeats,
                Runtime.getRuntime().availableProcessors());
        Path workDir = Files.createTempDirectory("duraflow-jar-bench-");
        BenchJobJars jars = BenchJobJars.compile(workDir.resolve("jars"));
        LocalCluster cluster = new LocalCluster(workDir.resolve("cluster"),
                Map.of(TaskManagerOptions.SLOTS.key(), "1"), line -> {});
        List<Run> tiny = new ArrayList<>();
        List<Run> large = new ArrayList<>();
        try {
            String address = cluster.start(TASK_MANAGERS, 1, 0, startTimeout);
            try (ClusterClient client = new ClusterClient(address)) {
                checkSlots(client);
                print(measure(client, cluster, jars.build("warm-up.jar", 1024, -1), "warm-up"));
                for (int i = 1; i <= repeats; i++) {
                    tiny.add(print(measure(client, cluster, jars.build("tiny-" + i + ".jar", 1024, i), "tiny jar #" + i)));
                    Path jar = jars.build("large-" + i + ".jar", (long) jarMb << 20, 1000L + i);
                    large.add(print(measure(client, cluster, jar, jarMb + " MB jar #" + i)));
                    Files.delete(jar);
                }
            }
        } catch (Exception | Error e) {
            System.err.println("the cluster's logs are kept in " + cluster.workDir().resolve("log"));
            throw e;
        } finally {
            cluster.stop();
        }
        printSummary(tiny, large, repeats);
        deleteRecursively(workDir);
    }

    private static void checkSlots(ClusterClient client) {
        List<TaskManagerInfo> tms = client.overview().getTaskManagersList();
        check(tms.size() == TASK_MANAGERS && tms.stream().allMatch(tm -> tm.getSlots() == 1),
                "expected " + TASK_MANAGERS + " TaskManagers of 1 slot, found " + tms);
    }

    /** Runs the job from {@code jar} as {@code duraflow run jar} would, timing each step. */
    private static Run measure(ClusterClient client, LocalCluster cluster, Path jar, String label) throws Exception {
        Map<String, String> params = Map.of("n", Long.toString(NUMBERS));
        long started = System.nanoTime();
        JobJar jobJar = JobJar.open(jar);
        long hashed = System.nanoTime();
        String jobId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(BenchJobJars.JOB_CLASS)
                .putAllParams(params).setParallelism(TASK_MANAGERS).setArtifact(JobArtifact.newBuilder()
                        .setSha256(jobJar.sha256()).setFileName(jobJar.fileName()).setSize(jobJar.size())).build();
        long[] cpuBefore = cpuMs(cluster);
        long uploadStart = System.nanoTime();
        client.submitJar(request, jar);
        long accepted = System.nanoTime();
        LocalTime acceptedAt = LocalTime.now();
        awaitAllRunning(client, jobId);
        long allRunning = System.nanoTime();
        long[] cpuAfter = cpuMs(cluster);
        long taskManagersCpu = 0;
        for (int i = 1; i <= TASK_MANAGERS; i++) {
            taskManagersCpu += cpuAfter[i] - cpuBefore[i];
        }
        JobStatus status = awaitEnd(client, jobId);
        long ended = System.nanoTime();
        check(status.getState() == JobState.JOB_FINISHED, label + ": the job ended " + status.getState() + ": "
                + status.getFailure());
        checkResult(client.result(jobId), jar, params, label);
        return new Run(label, jobJar.size(), ms(hashed - started), ms(accepted - uploadStart), ms(allRunning - accepted),
                ms(ended - accepted), fetches(cluster, jobId, acceptedAt), new Cpu(cpuAfter[0] - cpuBefore[0],
                        taskManagersCpu));
    }

    /** The CPU time used so far by the JobManager (index 0) and each TaskManager (1..4), in ms. */
    private static long[] cpuMs(LocalCluster cluster) throws IOException {
        long[] cpu = new long[TASK_MANAGERS + 1];
        for (int i = 0; i <= TASK_MANAGERS; i++) {
            String name = i == 0 ? "jobmanager" : "taskmanager-" + i;
            long pid = Long.parseLong(Files.readString(cluster.workDir().resolve("pids").resolve(name + ".pid")).trim());
            cpu[i] = ProcessHandle.of(pid).flatMap(process -> process.info().totalCpuDuration())
                    .map(Duration::toMillis).orElseThrow(() -> new IllegalStateException(name + " (pid " + pid
                            + ") is not running or does not tell its CPU time"));
        }
        return cpu;
    }

    /**
     * Polls until every task of the job's first vertex (its only one: source, map and collect are
     * chained) reported RUNNING or already FINISHED, on as many TaskManagers as there are tasks.
     */
    private static void awaitAllRunning(ClusterClient client, String jobId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            JobStatus status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState()) && status.getState() != JobState.JOB_FINISHED) {
                throw new IllegalStateException("job " + jobId + " ended " + status.getState() + ": "
                        + status.getFailure());
            }
            if (status.getVerticesCount() > 0) {
                VertexStatus first = status.getVertices(0);
                Set<String> taskManagers = new HashSet<>();
                int started = 0;
                for (TaskStatus task : first.getTasksList()) {
                    check(task.getAttempt() == 0, "job " + jobId + ": a task ran again (attempt " + task.getAttempt()
                            + "), so the figures would include a failure and a retry: " + first.getTasksList());
                    if (task.getState().equals("RUNNING") || task.getState().equals("FINISHED")) {
                        started++;
                        taskManagers.add(task.getTmId());
                    }
                }
                if (started == TASK_MANAGERS) {
                    check(taskManagers.size() == TASK_MANAGERS, "the " + TASK_MANAGERS + " tasks ran on "
                            + taskManagers.size() + " TaskManagers, not one on each: " + first.getTasksList());
                    return;
                }
            }
            Thread.sleep(POLL_MS);
        }
        throw new IllegalStateException("job " + jobId + ": its tasks did not all run within 2 minutes");
    }

    private static JobStatus awaitEnd(ClusterClient client, String jobId) throws InterruptedException {
        while (true) {
            JobStatus status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                return status;
            }
            Thread.sleep(5);
        }
    }

    /** The collected result decoded with the job's plan, built from the jar here as the command line does. */
    private static void checkResult(JobResult result, Path jar, Map<String, String> params, String label)
            throws IOException {
        List<Object> doubled;
        try (JobClassLoader loader = new JobClassLoader("bench", jar, JarDistributionBenchmark.class.getClassLoader())) {
            JobGraph graph = JobPlans.build(loader, BenchJobJars.JOB_CLASS, params, TASK_MANAGERS, RuntimeMode.AUTOMATIC);
            doubled = CollectedResults.decode(result, graph).get(BenchJobJars.RESULT);
        }
        long sum = 0;
        for (Object value : doubled) {
            sum += (Long) value;
        }
        check(doubled.size() == NUMBERS && sum == NUMBERS * (NUMBERS - 1), label + ": the job collected "
                + doubled.size() + " numbers summing to " + sum + ", not " + NUMBERS + " summing to "
                + NUMBERS * (NUMBERS - 1));
    }

    /** Each TaskManager's fetch of the job's jar, from its log line, in ms after the acceptance. */
    private static List<Fetch> fetches(LocalCluster cluster, String jobId, LocalTime acceptedAt) throws IOException {
        List<Fetch> fetches = new ArrayList<>();
        for (int i = 1; i <= TASK_MANAGERS; i++) {
            String name = "taskmanager-" + i;
            for (String line : Files.readAllLines(cluster.log(name))) {
                Matcher matcher = FETCHED.matcher(line);
                if (matcher.find() && matcher.group(2).equals(jobId)) {
                    long endMs = Duration.between(acceptedAt, LocalTime.parse(matcher.group(1))).toMillis();
                    long durationMs = Long.parseLong(matcher.group(4));
                    fetches.add(new Fetch(name, endMs - durationMs, durationMs));
                }
            }
        }
        return fetches;
    }

    private static Run print(Run run) {
        double mb = run.jarBytes() / MB;
        StringBuilder fetchText = new StringBuilder();
        for (Fetch fetch : run.fetches()) {
            fetchText.append(fetchText.length() == 0 ? "" : ", ").append(fetch.taskManager().replace("taskmanager", "tm"))
                    .append(' ').append(fetch.startMs()).append('+').append(fetch.durationMs());
        }
        System.out.printf("%-14s %7.2f MB | upload %,6d ms (%s) | distribution %,6d ms (%s to %d TMs) | total %,6d ms"
                        + " | client hash %,d ms | job done %,d ms after accepted, result ok%n",
                run.label(), mb, run.uploadMs(), rate(mb, run.uploadMs()), run.distributionMs(),
                rate(mb * TASK_MANAGERS, run.distributionMs()), TASK_MANAGERS, run.totalMs(), run.hashMs(), run.jobMs());
        System.out.printf("%-14s CPU until all ran: JobManager %,d ms, TaskManagers %,d ms | fetches (ms after"
                + " accepted, start+took): %s%n", "", run.cpu().jobManagerMs(), run.cpu().taskManagersMs(), fetchText);
        check(run.fetches().size() == TASK_MANAGERS, run.label() + ": " + run.fetches().size() + " TaskManagers logged"
                + " a fetch of the jar, not " + TASK_MANAGERS);
        return run;
    }

    private static void printSummary(List<Run> tiny, List<Run> large, int repeats) {
        long tinyUpload = median(tiny, Run::uploadMs);
        long tinyDistribution = median(tiny, Run::distributionMs);
        long largeUpload = median(large, Run::uploadMs);
        long largeDistribution = median(large, Run::distributionMs);
        double mb = large.get(0).jarBytes() / MB;
        long slowestFetch = median(large, run -> run.fetches().stream().mapToLong(Fetch::durationMs).max().orElse(0));
        long tmCpu = median(large, run -> run.cpu().taskManagersMs()) - median(tiny, run -> run.cpu().taskManagersMs());
        long jmCpu = median(large, run -> run.cpu().jobManagerMs()) - median(tiny, run -> run.cpu().jobManagerMs());
        System.out.printf("median of %d: %.0f MB jar: upload %,d ms, distribution %,d ms, total %,d ms | tiny jar:"
                        + " upload %,d ms, distribution %,d ms, total %,d ms%n", repeats, mb, largeUpload,
                largeDistribution, largeUpload + largeDistribution, tinyUpload, tinyDistribution,
                tinyUpload + tinyDistribution);
        System.out.printf("what the %.0f MB cost on top of a tiny jar: upload +%,d ms (%s), distribution +%,d ms"
                        + " (%s to %d TMs; slowest TaskManager's fetch %,d ms, %s), total +%,d ms | CPU: JobManager +%,d ms,"
                + " TaskManagers +%,d ms%n", mb, largeUpload - tinyUpload, rate(mb, largeUpload - tinyUpload),
                largeDistribution - tinyDistribution, rate(mb * TASK_MANAGERS, largeDistribution - tinyDistribution),
                TASK_MANAGERS, slowestFetch, rate(mb, slowestFetch),
                largeUpload + largeDistribution - tinyUpload - tinyDistribution, jmCpu, tmCpu);
    }

    private static long median(List<Run> runs, ToLongFunction<Run> value) {
        List<Long> values = new ArrayList<>(runs.stream().map(value::applyAsLong).toList());
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    private static String rate(double mb, long ms) {
        return ms <= 0 ? "- MB/s" : String.format("%,.0f MB/s", mb / (ms / 1000.0));
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Collections.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("benchmark result is wrong: " + message);
        }
    }
}

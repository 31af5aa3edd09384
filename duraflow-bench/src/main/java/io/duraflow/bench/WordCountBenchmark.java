package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.client.CollectedResults;
import io.duraflow.examples.WordCount;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.api.types.Tuple2;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * WordCount over generated words (word i = "w" + (i * 7919 % 100000)) at parallelism 2, on a
 * local cluster of separate processes (1 JobManager, 2 TaskManagers), and, when built with the
 * {@code flink} profile, the same job on Apache Flink's MiniCluster in the same run. The cluster's
 * processes run with {@code bin/duraflow}'s jars, as a user's cluster does.
 *
 * <p>Prints: total wall time (cluster start, job, cluster stop), the job alone on a running
 * cluster (submission to result in the client; first run and median of the repeats), records/s,
 * peak TaskManager heap, the checksum, and the Duraflow/Flink ratios.
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench,flink -pl duraflow-bench -am package
 *   (arguments: -Dbench.words=10000000 -Dbench.repeats=3)
 * </pre>
 */
public final class WordCountBenchmark {
    private static final int PARALLELISM = 2;

    record Run(long totalMs, long firstJobMs, long medianJobMs, long peakHeapBytes, long distinct, long sum,
            long startMs, long stopMs) {}

    public static void main(String[] args) throws Exception {
        // The cluster's processes get bin/duraflow's class path, as a user's do, not Flink's jars.
        System.setProperty("duraflow.classpath", LauncherClassPath.jars());
        long words = Long.getLong("bench.words", 10_000_000L);
        int repeats = Integer.getInteger("bench.repeats", 3);
        System.out.printf("WordCount benchmark: %,d words, parallelism %d, %d cores%n", words, PARALLELISM,
                Runtime.getRuntime().availableProcessors());
        // First, in a JVM that has run nothing yet, as 'duraflow run --embedded' does.
        Run embedded = runEmbedded(words);
        System.out.printf("duraflow run --embedded (one process, start to exit): total %,d ms | job %,d ms"
                + " | %,d distinct words, %,d words read%n", embedded.totalMs(), embedded.firstJobMs(),
                embedded.distinct(), embedded.sum());
        check(embedded.sum() == words, "run --embedded read " + embedded.sum() + " words, not " + words);
        check(embedded.distinct() == 100_000 || words < 100_000, "run --embedded: wrong number of distinct words");
        Run duraflow = runDuraflow(words, repeats);
        double rate = words / (duraflow.firstJobMs() / 1000.0);
        System.out.printf("duraflow: total %,d ms | job %,d ms (first), %,d ms (median of %d) | %,.0f records/s"
                        + " | peak TaskManager heap %,d MiB | checksum %,d words, %,d counted%n",
                duraflow.totalMs(), duraflow.firstJobMs(), duraflow.medianJobMs(), repeats, rate,
                duraflow.peakHeapBytes() >> 20, duraflow.distinct(), duraflow.sum());
        System.out.printf("duraflow local cluster: start %,d ms | first job %,d ms | the rest (result check, stop) %,d ms"
                + " | stop %,d ms%n", duraflow.startMs(), duraflow.firstJobMs(),
                duraflow.totalMs() - duraflow.startMs() - duraflow.firstJobMs(), duraflow.stopMs());
        check(duraflow.distinct() == 100_000 || words < 100_000, "wrong number of distinct words");
        check(duraflow.sum() == words, "counts do not sum to the number of words");

        Class<?> flink;
        try {
            flink = Class.forName("io.duraflow.bench.flink.FlinkWordCount");
        } catch (ClassNotFoundException e) {
            System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
            return;
        }
        Method run = flink.getMethod("run", long.class, int.class);
        Object result = run.invoke(null, words, PARALLELISM);
        long flinkTotal = (long) result.getClass().getMethod("totalWallMillis").invoke(result);
        long flinkJob = (long) result.getClass().getMethod("jobMillis").invoke(result);
        System.out.printf("flink 2.3.0 MiniCluster: total %,d ms | job %,d ms | %s%n", flinkTotal, flinkJob, result);
        System.out.printf("ratio duraflow/flink: total %.2f (target <= 0.50) | job %.2f first run, %.2f median"
                        + " (target <= 0.80)%n", (double) duraflow.totalMs() / flinkTotal,
                (double) duraflow.firstJobMs() / flinkJob, (double) duraflow.medianJobMs() / flinkJob);
        System.out.printf("ratio duraflow embedded/flink: total %.2f (target <= 0.25)%n",
                (double) embedded.totalMs() / flinkTotal);
    }

    /**
     * {@code bin/duraflow run --embedded wordcount} as a user runs it: a new process that starts a
     * JobManager and a TaskManager inside it, runs the job, prints the result and exits. Its wall
     * time from start to exit; the words counted come from the summary it prints.
     */
    private static Run runEmbedded(long words) throws Exception {
        Path launcher = Path.of("..", "bin", "duraflow").toAbsolutePath().normalize();
        Path output = Files.createTempFile("duraflow-embedded-", ".out");
        long start = System.nanoTime();
        Process process = new ProcessBuilder(launcher.toString(), "run", "--embedded", "wordcount", "--param",
                "words=" + words, "--parallelism", Integer.toString(PARALLELISM), "--show", "0")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        int exit = process.waitFor();
        long totalMs = (System.nanoTime() - start) / 1_000_000;
        String printed = Files.readString(output);
        Files.deleteIfExists(output);
        check(exit == 0, "run --embedded exited with " + exit + ":\n" + printed);
        java.util.regex.Matcher summary = java.util.regex.Pattern.compile("summary: ([\\d,]+) records read.*?, ([\\d.]+) s,")
                .matcher(printed);
        java.util.regex.Matcher counts = java.util.regex.Pattern.compile(WordCount.RESULT + ": ([\\d,]+) records")
                .matcher(printed);
        check(summary.find() && counts.find(), "run --embedded printed no summary:\n" + printed);
        long read = Long.parseLong(summary.group(1).replace(",", ""));
        long jobMs = Math.round(Double.parseDouble(summary.group(2)) * 1000);
        return new Run(totalMs, jobMs, jobMs, 0, Long.parseLong(counts.group(1).replace(",", "")), read, 0, 0);
    }

    private static Run runDuraflow(long words, int repeats) throws Exception {
        Path workDir = Files.createTempDirectory("duraflow-bench-");
        LocalCluster cluster = new LocalCluster(workDir, Map.of(), line -> {});
        long start = System.nanoTime();
        List<Long> jobTimes = new ArrayList<>();
        long distinct = 0;
        long sum = 0;
        long peakHeap = 0;
        long startMs = 0;
        long stopStart = 0;
        try {
            String address = cluster.start(2, 1, 0, Duration.ofSeconds(60));
            startMs = (System.nanoTime() - start) / 1_000_000;
            try (ClusterClient client = new ClusterClient(address)) {
                for (int i = 0; i < Math.max(1, repeats); i++) {
                    long jobStart = System.nanoTime();
                    Map<String, String> params = Map.of("words", Long.toString(words));
                    String jobId = client.submit(SubmitJobRequest.newBuilder().setJobClass(WordCount.class.getName())
                            .putAllParams(params).setParallelism(PARALLELISM).build()).getJobId();
                    JobStatus status = awaitEnd(client, jobId);
                    JobResult result = client.result(jobId);
                    jobTimes.add((System.nanoTime() - jobStart) / 1_000_000);
                    check(status.getState() == JobState.JOB_FINISHED, "job ended " + status.getState() + ": "
                            + status.getFailure());
                    if (i == 0) {
                        var records = CollectedResults.decode(result, JobPlans.build(WordCount.class.getName(), params,
                                PARALLELISM)).get(WordCount.RESULT);
                        distinct = records.size();
                        for (Object record : records) {
                            @SuppressWarnings("unchecked")
                            Tuple2<String, Long> count = (Tuple2<String, Long>) record;
                            sum += count.f1();
                        }
                        for (TaskManagerInfo tm : client.overview().getTaskManagersList()) {
                            peakHeap = Math.max(peakHeap, tm.getPeakHeapUsedBytes());
                        }
                    }
                }
            }
        } finally {
            stopStart = System.nanoTime();
            cluster.stop();
        }
        // Total = cluster start + first job + stop, like the Flink MiniCluster figure.
        long stopDone = (System.nanoTime() - start) / 1_000_000;
        long stopMs = (System.nanoTime() - stopStart) / 1_000_000;
        long repeatsTime = 0;
        for (int i = 1; i < jobTimes.size(); i++) {
            repeatsTime += jobTimes.get(i);
        }
        long totalMs = stopDone - repeatsTime;
        List<Long> sorted = new ArrayList<>(jobTimes);
        Collections.sort(sorted);
        return new Run(totalMs, jobTimes.get(0), sorted.get(sorted.size() / 2), peakHeap, distinct, sum, startMs, stopMs);
    }

    private static JobStatus awaitEnd(ClusterClient client, String jobId) throws InterruptedException {
        while (true) {
            JobStatus status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                return status;
            }
            Thread.sleep(20);
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("benchmark result is wrong: " + message);
        }
    }
}

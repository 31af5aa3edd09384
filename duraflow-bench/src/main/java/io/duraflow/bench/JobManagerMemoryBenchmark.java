package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.examples.WordCount;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The leader's memory stays flat however many jobs run: a local cluster (one JobManager with
 * -Xmx512m, one TaskManager) runs many small WordCount jobs, then WordCount jobs that each collect
 * millions of distinct words, one after another. After every step the benchmark forces a GC in
 * the JobManager (jcmd) and prints its used heap; every result is checked. Before a fix, the
 * sixth of eight 2.5 M-record jobs ran the JobManager out of memory.
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench -Dbench.main=io.duraflow.bench.JobManagerMemoryBenchmark -pl duraflow-bench -am package
 *   (-Dbench.small-jobs=10000 -Dbench.large-jobs=100 -Dbench.large-distinct=2500000)
 * </pre>
 */
public final class JobManagerMemoryBenchmark {
    private static final Pattern USED = Pattern.compile("used (\\d+)K");

    public static void main(String[] args) throws Exception {
        int smallJobs = Integer.getInteger("bench.small-jobs", 10_000);
        int largeJobs = Integer.getInteger("bench.large-jobs", 100);
        long largeDistinct = Long.getLong("bench.large-distinct", 2_500_000L);
        Path workDir = Files.createTempDirectory("duraflow-jm-memory-");
        LocalCluster cluster = new LocalCluster(workDir, Map.of("taskmanager.slots", "4"), line -> {});
        System.out.printf("JobManager memory: %,d small jobs, then %,d jobs collecting %,d records each"
                + " (JobManager -Xmx512m)%n", smallJobs, largeJobs, largeDistinct);
        try {
            String address = cluster.start(1, 1, 0, Duration.ofSeconds(60));
            ProcessHandle jobManager = cluster.processListeningOn(address);
            try (ClusterClient client = new ClusterClient(address)) {
                long baseline = usedHeapAfterGc(jobManager);
                System.out.printf("%-28s %,8d KiB used after GC%n", "started", baseline);
                List<Long> small = new ArrayList<>();
                runSmallJobs(client, smallJobs, jobManager, small);
                List<Long> large = new ArrayList<>();
                for (int i = 1; i <= largeJobs; i++) {
                    runJob(client, "large-" + i, Map.of("words", Long.toString(largeDistinct), "distinct",
                            Long.toString(largeDistinct)), largeDistinct);
                    if (i % Math.max(1, largeJobs / 10) == 0 || i == largeJobs) {
                        long used = usedHeapAfterGc(jobManager);
                        large.add(used);
                        System.out.printf("%-28s %,8d KiB used after GC%n", "after " + i + " large jobs", used);
                    }
                }
                summary("small jobs", small);
                summary("large-result jobs", large);
            }
        } finally {
            cluster.stop();
        }
    }

    /** Flat means the last sample of a phase is within 10 % of its first. */
    private static void summary(String phase, List<Long> samples) {
        if (samples.isEmpty()) {
            return;
        }
        long first = samples.get(0);
        long last = samples.get(samples.size() - 1);
        long max = samples.stream().mapToLong(Long::longValue).max().orElse(0);
        System.out.printf("%s: JobManager heap after GC first %,d KiB, last %,d KiB, largest %,d KiB: %s%n", phase,
                first, last, max, last <= first * 1.1 ? "flat" : "GROWS");
    }

    private static void runSmallJobs(ClusterClient client, int count, ProcessHandle jobManager, List<Long> samples)
            throws Exception {
        ExecutorService submitters = Executors.newFixedThreadPool(4);
        AtomicLong done = new AtomicLong();
        long start = System.nanoTime();
        int step = Math.max(1, count / 10);
        for (int from = 0; from < count; from += step) {
            List<Future<?>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + step); i++) {
                String jobId = "small-" + i;
                batch.add(submitters.submit(() -> {
                    runJob(client, jobId, Map.of("words", "100", "distinct", "10"), 10);
                    done.incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> job : batch) {
                job.get();
            }
            long used = usedHeapAfterGc(jobManager);
            samples.add(used);
            System.out.printf("%-28s %,8d KiB used after GC (%.0f jobs/s)%n", "after " + done.get() + " small jobs",
                    used, done.get() / ((System.nanoTime() - start) / 1e9));
        }
        submitters.shutdown();
        submitters.awaitTermination(1, TimeUnit.MINUTES);
    }

    private static void runJob(ClusterClient client, String jobId, Map<String, String> params, long expectedDistinct)
            throws InterruptedException {
        client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(WordCount.class.getName())
                .putAllParams(params).setParallelism(1).build());
        JobStatus status;
        do {
            Thread.sleep(5);
            status = client.status(jobId);
        } while (!JobRunner.isTerminal(status.getState()));
        if (status.getState() != JobState.JOB_FINISHED) {
            throw new IllegalStateException("job " + jobId + " ended " + status.getState() + ": " + status.getFailure());
        }
        JobResult result = client.result(jobId);
        long records = result.getCollectedList().stream().mapToLong(c -> c.getRecords()).sum();
        if (records != expectedDistinct) {
            throw new IllegalStateException("benchmark result is wrong: job " + jobId + " collected " + records
                    + " records, expected " + expectedDistinct);
        }
    }

    /** Forces a full GC in the process and returns its used heap (young + old), in KiB. */
    private static long usedHeapAfterGc(ProcessHandle process) throws IOException, InterruptedException {
        jcmd(process, "GC.run");
        long used = 0;
        for (String line : jcmd(process, "GC.heap_info").split("\n")) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                continue;
            }
            Matcher m = USED.matcher(line);
            if (m.find() && (line.contains("Gen") || line.contains("garbage-first heap") || line.contains("heap"))) {
                used += Long.parseLong(m.group(1));
            }
        }
        return used;
    }

    private static String jcmd(ProcessHandle process, String command) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder("jcmd", Long.toString(process.pid()), command).redirectErrorStream(true)
                .start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (jcmd.waitFor() != 0) {
            throw new IOException("jcmd " + command + " failed: " + out);
        }
        return out;
    }
}

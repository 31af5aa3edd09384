package io.duraflow.bench;

import io.duraflow.api.types.Tuple3;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.client.CollectedResults;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the Prometheus endpoints cost a streaming job, two local clusters side by side in
 * alternating pairs. See docs/design/benchmarks.md#metricsoverheadbenchmark.
 */
public final class MetricsOverheadBenchmark {
    private static final int PARALLELISM = 2;
    private static final long KEYS = 10_000;
    private static final long POLL_MS = 50;
    private static final double TARGET_OVERHEAD_PERCENT = 1.0;
    private static final int COST_SCRAPES = 200;
    private static final Pattern ENDPOINT = Pattern.compile("Prometheus metrics of this \\w+ at (http://\\S+)");

    /** One run: whether the cluster had metrics, the job's time and what the scraper did meanwhile. */
    record Run(String jobId, boolean metrics, long jobMs, double recordsPerSecond, long scrapes, long scrapedBytes) {}

    private final long records;
    private final long scrapeIntervalMs;
    private int jobs;

    private MetricsOverheadBenchmark(long records, long scrapeIntervalMs) {
        this.records = records;
        this.scrapeIntervalMs = scrapeIntervalMs;
    }

    /** A running local cluster, its client and, with metrics, its endpoints. */
    record Cluster(LocalCluster cluster, ClusterClient client, Path workDir, List<String> endpoints) {
        Path checkpoints() {
            return workDir.resolve("checkpoints");
        }
    }

    public static void main(String[] args) throws Exception {
        long records = Long.getLong("bench.streaming-records", 20_000_000L);
        int pairs = Integer.getInteger("bench.pairs", 5);
        long scrapeIntervalMs = Long.getLong("bench.scrape-interval-ms", 1_000L);
        if (records < 1 || pairs < 1 || scrapeIntervalMs < 1) {
            throw new IllegalArgumentException("need bench.streaming-records, bench.pairs and"
                    + " bench.scrape-interval-ms >= 1");
        }
        String loadBefore = StateBackendBenchmark.loadAverage();
        System.out.printf(Locale.ROOT, "Metrics overhead: StreamingKeyedSum %,d records, %,d keys, parallelism %d,"
                + " checkpoints every 1 s; 2 clusters (1 JobManager, 1 TaskManager x 4 slots), metrics on / off;"
                + " scrape every %,d ms; %d cores; load average %s; 1 warm-up run each, then %d pairs%n", records,
                KEYS, PARALLELISM, scrapeIntervalMs, Runtime.getRuntime().availableProcessors(), loadBefore, pairs);
        MetricsOverheadBenchmark bench = new MetricsOverheadBenchmark(records, scrapeIntervalMs);
        Path workDir = Files.createTempDirectory("duraflow-metrics-bench-");
        Cluster on = null;
        Cluster off = null;
        List<Run[]> measured = new ArrayList<>();
        try {
            on = start(workDir.resolve("metrics-on"), true);
            off = start(workDir.resolve("metrics-off"), false);
            System.out.println("endpoints of the cluster with metrics: " + on.endpoints());
            print("warm-up", bench.run(on));
            print("warm-up", bench.run(off));
            scrapeCost(on);
            for (int pair = 1; pair <= pairs; pair++) {
                boolean onFirst = pair % 2 == 1;
                Run first = bench.run(onFirst ? on : off);
                Run second = bench.run(onFirst ? off : on);
                Run withMetrics = onFirst ? first : second;
                Run without = onFirst ? second : first;
                measured.add(new Run[] {withMetrics, without});
                System.out.printf(Locale.ROOT, "pair %d (%s first): on %,.0f records/s (%,d scrapes, %,d bytes),"
                        + " off %,.0f records/s -> overhead %+.2f %% | load average %s%n", pair, onFirst ? "on" : "off",
                        withMetrics.recordsPerSecond(), withMetrics.scrapes(), withMetrics.scrapedBytes(),
                        without.recordsPerSecond(), overheadPercent(withMetrics, without),
                        StateBackendBenchmark.loadAverage());
            }
        } finally {
            for (Cluster cluster : new Cluster[] {on, off}) {
                if (cluster != null) {
                    cluster.client().close();
                    cluster.cluster().stop();
                }
            }
        }
        report(measured, loadBefore);
        System.out.println("cluster logs: " + workDir);
    }

    private static Cluster start(Path workDir, boolean metrics) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("taskmanager.slots", "4");
        if (metrics) {
            settings.put("metrics.prometheus.port", "0");
        }
        LocalCluster cluster = new LocalCluster(workDir, settings, line -> {});
        try {
            String address = cluster.start(1, 1, 0, Duration.ofSeconds(120));
            List<String> endpoints = metrics ? List.of(endpoint(workDir, "jobmanager"), endpoint(workDir,
                    "taskmanager-1")) : List.of();
            return new Cluster(cluster, new ClusterClient(address), workDir, endpoints);
        } catch (Exception e) {
            cluster.stop();
            throw e;
        }
    }

    /**
     * The CPU one scrape costs each process of the idle cluster with metrics: {@link #COST_SCRAPES}
     * scrapes back to back, the process's CPU time over them minus its CPU time over as long a
     * time without scrapes (heartbeats and the like). Independent of the machine's load, unlike
     * the throughput pairs; printed with what it makes of a scrape every 15 s (Prometheus' default)
     * and every second, in percent of one core.
     */
    private static void scrapeCost(Cluster cluster) throws Exception {
        Path pids = cluster.workDir().resolve("pids");
        String[] processes = {"jobmanager", "taskmanager-1"};
        for (int i = 0; i < processes.length; i++) {
            String url = cluster.endpoints().get(i);
            ProcessHandle process = ProcessHandle.of(Long.parseLong(Files.readString(pids.resolve(processes[i]
                    + ".pid")).trim())).orElseThrow(() -> new IllegalStateException("process gone"));
            for (int warm = 0; warm < COST_SCRAPES / 10; warm++) {
                PrometheusText.scrape(url);
            }
            long cpuBefore = cpuNanos(process);
            long start = System.nanoTime();
            long bytes = 0;
            for (int n = 0; n < COST_SCRAPES; n++) {
                bytes += PrometheusText.scrape(url).length();
            }
            long elapsed = System.nanoTime() - start;
            long scraping = cpuNanos(process) - cpuBefore;
            long idleBefore = cpuNanos(process);
            Thread.sleep(Math.max(1, elapsed / 1_000_000));
            long idle = cpuNanos(process) - idleBefore;
            double perScrapeMs = Math.max(0, scraping - idle) / 1e6 / COST_SCRAPES;
            System.out.printf(Locale.ROOT, "scrape cost, %s: %.2f ms CPU per scrape (%,d back to back, %,d bytes"
                    + " each; idle CPU over as long subtracted) = %.3f %% of one core at a scrape every 15 s,"
                    + " %.2f %% at one every second%n", processes[i], perScrapeMs, COST_SCRAPES, bytes / COST_SCRAPES,
                    perScrapeMs / 15_000 * 100, perScrapeMs / 1_000 * 100);
        }
    }

    private static long cpuNanos(ProcessHandle process) {
        return process.info().totalCpuDuration().orElseThrow(() -> new IllegalStateException("no CPU time of "
                + process.pid())).toNanos();
    }

    /** The endpoint the process logged; the cluster started, so it logged it (or it is off). */
    private static String endpoint(Path workDir, String process) throws IOException, InterruptedException {
        Path log = workDir.resolve("log").resolve(process + ".log");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = ENDPOINT.matcher(Files.exists(log) ? Files.readString(log) : "");
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(POLL_MS);
        }
        throw new IllegalStateException("no Prometheus endpoint in " + log);
    }

    private Run run(Cluster cluster) throws Exception {
        boolean metrics = !cluster.endpoints().isEmpty();
        String jobId = "metrics-" + (metrics ? "on-" : "off-") + (++jobs);
        Map<String, String> params = Map.of("records", Long.toString(records), "keys", Long.toString(KEYS));
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "1s");
        config.put("execution.checkpointing.dir", cluster.checkpoints().toString());
        config.put("state.backend.type", "heap");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong scrapes = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        List<Throwable> scrapeFailures = Collections.synchronizedList(new ArrayList<>());
        Thread scraper = new Thread(() -> scrape(cluster.endpoints(), running, scrapes, bytes, scrapeFailures),
                "scraper");
        cluster.client().submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                .setJobClass(StreamingKeyedSum.class.getName()).putAllParams(params).putAllConfig(config)
                .setParallelism(PARALLELISM).build());
        scraper.start();
        JobStatus status;
        try {
            while (!JobRunner.isTerminal((status = cluster.client().status(jobId)).getState())) {
                Thread.sleep(POLL_MS);
            }
        } finally {
            running.set(false);
            scraper.interrupt();
            scraper.join();
        }
        if (!scrapeFailures.isEmpty()) {
            throw new IllegalStateException("a scrape of " + cluster.endpoints() + " failed", scrapeFailures.get(0));
        }
        if (status.getState() != JobState.JOB_FINISHED) {
            throw new IllegalStateException("job " + jobId + " ended " + status.getState() + ": " + status.getFailure());
        }
        checkExact(cluster.client().result(jobId), params);
        long jobMs = status.getEndedAtMs() - status.getSubmittedAtMs();
        return new Run(jobId, metrics, jobMs, records * 1000.0 / jobMs, scrapes.get(), bytes.get());
    }

    /** Scrapes every endpoint each interval until told to stop; parses each endpoint's first answer strictly. */
    private void scrape(List<String> endpoints, AtomicBoolean running, AtomicLong scrapes, AtomicLong bytes,
            List<Throwable> failures) {
        boolean parsed = false;
        while (running.get() && !endpoints.isEmpty()) {
            try {
                for (String url : endpoints) {
                    String body = PrometheusText.scrape(url);
                    if (!parsed) {
                        PrometheusText.parse(body);
                    }
                    scrapes.incrementAndGet();
                    bytes.addAndGet(body.length());
                }
                parsed = true;
                Thread.sleep(scrapeIntervalMs);
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (running.get()) {
                    failures.add(e);
                }
                return;
            }
        }
    }

    private void checkExact(JobResult result, Map<String, String> params) {
        List<Tuple3<Long, Long, Long>> sums = new ArrayList<>();
        for (Object record : CollectedResults.decode(result, JobPlans.build(StreamingKeyedSum.class.getName(), params,
                PARALLELISM)).getOrDefault(StreamingKeyedSum.RESULT, List.of())) {
            @SuppressWarnings("unchecked")
            Tuple3<Long, Long, Long> sum = (Tuple3<Long, Long, Long>) record;
            sums.add(sum);
        }
        List<String> problems = StreamingKeyedSum.verify(sums, records, KEYS);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("job " + result.getStatus().getJobId() + " is not exact: " + problems);
        }
    }

    private static void print(String what, Run run) {
        System.out.printf(Locale.ROOT, "%s %s: %,d ms = %,.0f records/s%s%n", what, run.jobId(), run.jobMs(),
                run.recordsPerSecond(), run.metrics() ? String.format(Locale.ROOT, " (%,d scrapes)", run.scrapes())
                        : "");
    }

    private static double overheadPercent(Run withMetrics, Run without) {
        return (without.recordsPerSecond() - withMetrics.recordsPerSecond()) / without.recordsPerSecond() * 100;
    }

    private static void report(List<Run[]> pairs, String loadBefore) {
        List<Double> overheads = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> off = new ArrayList<>();
        for (Run[] pair : pairs) {
            overheads.add(overheadPercent(pair[0], pair[1]));
            on.add(pair[0].recordsPerSecond());
            off.add(pair[1].recordsPerSecond());
        }
        double median = median(overheads);
        System.out.printf(Locale.ROOT, "median throughput: metrics on %,.0f records/s, off %,.0f records/s%n",
                median(on), median(off));
        System.out.printf(Locale.ROOT, "overhead of metrics (median of %d pairs): %+.2f %% (pairs: %s) -> target"
                + " < %.0f %%: %s%n", pairs.size(), median, overheads.stream().map(o -> String.format(Locale.ROOT,
                "%+.2f", o)).toList(), TARGET_OVERHEAD_PERCENT, median < TARGET_OVERHEAD_PERCENT ? "met" : "NOT met");
        System.out.printf("load average: before %s, after %s%n", loadBefore, StateBackendBenchmark.loadAverage());
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}

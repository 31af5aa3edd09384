package io.duraflow.bench;

import io.duraflow.api.types.Tuple2;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.client.CollectedResults;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.examples.RecoveryDemo;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
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
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the job event log of batch job recovery costs a batch job, with the log on and off in
 * alternating pairs. See docs/design/benchmarks.md#eventlogoverheadbenchmark.
 */
public final class EventLogOverheadBenchmark {
    private static final int PARALLELISM = 4;
    private static final int SOURCES = 8;
    /** RecoveryDemo's default number of keys; {@link RecoveryDemo#expected} needs it. */
    private static final long KEYS = 10_000;
    private static final long STATUS_POLL_MS = 20;
    private static final double TARGET_OVERHEAD_PERCENT = 2.0;

    /** One run: the job's own time (JobStatus) and the client's time, both in ms. */
    record Run(String jobId, boolean eventLog, long jobMs, long clientMs) {}

    /** The event log of one run as it was when the job ended; {@code bytes} includes file headers. */
    record LogContents(Map<JobEvent.EventCase, Integer> eventsByType, int events, long bytes, int files) {}

    private final ClusterClient client;
    private final HighAvailabilityServices ha;
    private final Map<String, String> params;
    private final JobGraph graph;
    private final long[] expectedSums;
    private final Path linkRoot;

    private EventLogOverheadBenchmark(ClusterClient client, HighAvailabilityServices ha, Map<String, String> params,
            long[] expectedSums, Path linkRoot) {
        this.client = client;
        this.ha = ha;
        this.params = params;
        this.graph = JobPlans.build(RecoveryDemo.class.getName(), params, PARALLELISM);
        this.expectedSums = expectedSums;
        this.linkRoot = linkRoot;
    }

    public static void main(String[] args) throws Exception {
        long records = Long.getLong("bench.records", 300_000_000L);
        int pairs = Integer.getInteger("bench.pairs", 5);
        check(records >= SOURCES && pairs >= 1, "need bench.records >= " + SOURCES + " and bench.pairs >= 1");
        Map<String, String> params = Map.of("records", Long.toString(records), "sources", Integer.toString(SOURCES));
        System.out.printf("Job event log overhead: RecoveryDemo %,d records, %d sources, parallelism %d; ZooKeeper,"
                + " 2 JobManagers, 2 TaskManagers x 2 slots; %d cores; 1 warm-up run each, then %d on/off pairs%n",
                records, SOURCES, PARALLELISM, Runtime.getRuntime().availableProcessors(), pairs);
        long[] expectedSums = RecoveryDemo.expected(records, KEYS);

        Path workDir = Files.createTempDirectory("duraflow-eventlog-");
        Map<String, String> settings = Map.of("taskmanager.slots", "2");
        LocalCluster cluster = new LocalCluster(workDir, settings, line -> {});
        List<Run> runs = new ArrayList<>();
        LogContents log;
        try {
            // More than one JobManager is what makes LocalCluster start ZooKeeper and turn high
            // availability on, so the log is written where a real failover would read it.
            cluster.start(2, 2, 0, Duration.ofSeconds(60));
            Configuration config = cluster.clientConfiguration();
            try (HighAvailabilityServices ha = HighAvailabilityServices.create(config);
                    ClusterClient client = new ClusterClient(config, "", Duration.ofSeconds(60))) {
                EventLogOverheadBenchmark bench = new EventLogOverheadBenchmark(client, ha, params, expectedSums,
                        workDir.resolve("event-log-links"));
                log = bench.warmUp();
                // Every other pair runs the log-off job first, so that a drift of the machine (JIT
                // warm-up, page cache) does not favour one side.
                for (int pair = 1; pair <= pairs; pair++) {
                    boolean onFirst = pair % 2 == 1;
                    runs.add(bench.run("eventlog-" + (onFirst ? "on-" : "off-") + pair, onFirst, false));
                    runs.add(bench.run("eventlog-" + (onFirst ? "off-" : "on-") + pair, !onFirst, false));
                }
            }
        } finally {
            cluster.stop();
        }
        report(runs, log);
        System.out.println("cluster logs: " + workDir.resolve("log"));
    }

    /** One run with the log and one without, not measured; returns what the log held. */
    private LogContents warmUp() throws Exception {
        Run on = run("eventlog-on-warmup", true, true);
        LogContents log = readLinked(on.jobId());
        check(log.events() > 0, "no event log file was seen while the run with the log on ran (the log creates"
                + " its file at its first flush; a very short job may end and be cleaned up before a look)");
        Run off = run("eventlog-off-warmup", false, true);
        check(readLinked(off.jobId()).files() == 0,
                "the run with the event log off wrote a log: the per-job setting was not honored");
        System.out.printf("warm-up: log on %,d ms, log off %,d ms (job time)%n", on.jobMs(), off.jobMs());
        return log;
    }

    /**
     * Submits the job with the event log on or off, waits until its status is terminal and checks
     * that it finished with the expected result. With {@code linkLog}, hard-links the job's log
     * files while it runs (the job's cleanup deletes them right after it ends).
     */
    private Run run(String jobId, boolean eventLog, boolean linkLog) throws Exception {
        Path logDirectory = ha.jobDirectory(jobId).resolve(Dispatcher.JOB_EVENTS_DIRECTORY).toLocalPath();
        Path links = linkRoot.resolve(jobId);
        if (linkLog) {
            Files.createDirectories(links);
        }
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId)
                .setJobClass(RecoveryDemo.class.getName()).putAllParams(params).setParallelism(PARALLELISM)
                .putConfig(JobRecoveryOptions.ENABLED.key(), eventLog ? "on" : "off").build();
        long start = System.nanoTime();
        client.submit(request);
        JobStatus status;
        while (!JobRunner.isTerminal((status = client.status(jobId)).getState())) {
            if (linkLog) {
                linkNewFiles(logDirectory, links);
            }
            Thread.sleep(STATUS_POLL_MS);
        }
        long clientMs = (System.nanoTime() - start) / 1_000_000;
        check(status.getState() == JobState.JOB_FINISHED, "job " + jobId + " ended as " + status.getState() + ": "
                + status.getFailure());
        checkResult(jobId, client.result(jobId));
        return new Run(jobId, eventLog, status.getEndedAtMs() - status.getSubmittedAtMs(), clientMs);
    }

    /**
     * A hard link shares the file's data, so it holds everything the writer appends later and
     * survives the job's cleanup. The writer creates a file at its first flush, not at the job's start.
     */
    private static void linkNewFiles(Path logDirectory, Path links) throws IOException {
        if (!Files.isDirectory(logDirectory)) {
            return;
        }
        try (Stream<Path> files = Files.list(logDirectory)) {
            for (Path file : files.toList()) {
                Path link = links.resolve(file.getFileName());
                if (!Files.exists(link)) {
                    try {
                        Files.createLink(link, file);
                    } catch (java.nio.file.NoSuchFileException deletedMeanwhile) {
                        // The job ended and was cleaned up between listing and linking.
                    }
                }
            }
        } catch (java.nio.file.NoSuchFileException deletedMeanwhile) {
            // Same, between the check and the listing.
        }
    }

    private LogContents readLinked(String jobId) throws IOException {
        Path links = linkRoot.resolve(jobId);
        List<Path> files;
        try (Stream<Path> list = Files.list(links)) {
            files = list.toList();
        }
        if (files.isEmpty()) {
            return new LogContents(Map.of(), 0, 0, 0);
        }
        long bytes = 0;
        for (Path file : files) {
            bytes += Files.size(file);
        }
        JobEventReader.ReadResult read = JobEventReader.readAll(links);
        check(read.warnings().isEmpty(), "the event log of " + jobId + " is not clean: " + read.warnings());
        Map<JobEvent.EventCase, Integer> byType = new EnumMap<>(JobEvent.EventCase.class);
        for (JobEvent event : read.events()) {
            byType.merge(event.getEventCase(), 1, Integer::sum);
        }
        return new LogContents(byType, read.events().size(), bytes, files.size());
    }

    private void checkResult(String jobId, JobResult result) {
        long[] actual = new long[expectedSums.length];
        for (Object record : CollectedResults.decode(result, graph).get(RecoveryDemo.RESULT)) {
            @SuppressWarnings("unchecked")
            Tuple2<Long, Long> bucketSum = (Tuple2<Long, Long>) record;
            actual[Math.toIntExact(bucketSum.f0())] += bucketSum.f1();
        }
        check(Arrays.equals(actual, expectedSums), "job " + jobId + " finished with a wrong result");
    }

    private static void report(List<Run> runs, LogContents log) {
        System.out.println();
        System.out.println("pair | job ms: log on   log off   diff | client ms: log on   log off   diff");
        List<Long> jobOn = new ArrayList<>();
        List<Long> jobOff = new ArrayList<>();
        List<Long> clientOn = new ArrayList<>();
        List<Long> clientOff = new ArrayList<>();
        double diffSum = 0;
        for (int i = 0; i + 1 < runs.size(); i += 2) {
            Run on = runs.get(i).eventLog() ? runs.get(i) : runs.get(i + 1);
            Run off = runs.get(i).eventLog() ? runs.get(i + 1) : runs.get(i);
            diffSum += percent(on.jobMs(), off.jobMs());
            jobOn.add(on.jobMs());
            jobOff.add(off.jobMs());
            clientOn.add(on.clientMs());
            clientOff.add(off.clientMs());
            System.out.printf("%4d |      %,9d %,9d %+6.1f%% |        %,9d %,9d %+6.1f%%%n", i / 2 + 1, on.jobMs(),
                    off.jobMs(), percent(on.jobMs(), off.jobMs()), on.clientMs(), off.clientMs(),
                    percent(on.clientMs(), off.clientMs()));
        }
        double jobOnMedian = median(jobOn);
        double jobOffMedian = median(jobOff);
        double clientOnMedian = median(clientOn);
        double clientOffMedian = median(clientOff);
        System.out.printf("med. |      %,9.0f %,9.0f %+6.1f%% |        %,9.0f %,9.0f %+6.1f%%%n", jobOnMedian,
                jobOffMedian, percent(jobOnMedian, jobOffMedian), clientOnMedian, clientOffMedian,
                percent(clientOnMedian, clientOffMedian));
        System.out.println();
        double jobOverhead = percent(jobOnMedian, jobOffMedian);
        System.out.printf("mean of the per-pair differences of the job time: %+.1f %% (odd pairs ran the log-on job"
                + " first, even pairs the log-off job)%n", diffSum / jobOn.size());
        System.out.printf("overhead of the job event log, (median on - median off) / median off: job time %+.1f %%,"
                + " client time %+.1f %% (target for the job time < %.0f %%: %s)%n", jobOverhead,
                percent(clientOnMedian, clientOffMedian), TARGET_OVERHEAD_PERCENT,
                jobOverhead < TARGET_OVERHEAD_PERCENT ? "met" : "NOT met");
        StringBuilder types = new StringBuilder();
        log.eventsByType().forEach((type, count) -> types.append(types.length() == 0 ? "" : ", ")
                .append(type.name().toLowerCase().replace('_', '-')).append(' ').append(count));
        System.out.printf("event log of one run (warm-up, log on): %,d events (%s), %,d bytes in %d file(s)%n",
                log.events(), types, log.bytes(), log.files());
    }

    private static double percent(double value, double baseline) {
        return (value - baseline) * 100.0 / baseline;
    }

    private static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2.0;
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("benchmark failed: " + message);
        }
    }
}

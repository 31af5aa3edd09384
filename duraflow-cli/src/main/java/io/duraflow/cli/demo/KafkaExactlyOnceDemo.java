package io.duraflow.cli.demo;

import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.cli.CliException;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.kafka.KafkaBrokerLib;
import io.duraflow.cli.kafka.KafkaKeyedCount;
import io.duraflow.cli.kafka.KeyProducer;
import io.duraflow.cli.kafka.TopicReader;
import io.duraflow.config.Configuration;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.kafka.local.LocalKafkaBroker;
import io.duraflow.kafka.source.KafkaPartitionSplit;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * 'duraflow demo kafka-exactly-once': a Kafka broker (one KRaft node in a process of its own,
 * {@link LocalKafkaBroker}) next to a local high-availability cluster (ZooKeeper, two JobManagers,
 * two TaskManagers); {@link KafkaKeyedCount} counts keys from topic {@code input} into topic
 * {@code output} with the exactly-once Kafka sink (a transaction per subtask and checkpoint,
 * committed when the checkpoint completes) and a checkpoint every second. Once the job has read a
 * third of the records the demo SIGKILLs the TaskManager that runs most of its tasks, once it
 * has read two thirds the leader JobManager; then it waits until the output holds a count for
 * every input record, cancels the job, and checks the output as a {@code read_committed}
 * consumer sees it: for a key read n times, {@code key:1} .. {@code key:n}, each exactly once
 * ({@link KafkaKeyedCount#check}). It reports recovery times, the pauses in committed output and
 * the records written in transactions that were aborted, and exits 1 if the check fails.
 *
 * <p>The input is produced while the job runs, at {@code rate} records per second
 * ({@link KeyProducer}, from the job's first checkpoint on), rather than all up front: so the
 * crashes hit a job that reads fresh records as they come and has them in open transactions, as
 * in production, not one working off a backlog that it would have read to its end before the
 * second crash; and a downstream reader sees the pause a crash leaves in the committed output.
 *
 * <p>Parameters ({@code --param key=value}): {@code records} (default {@value #DEFAULT_RECORDS}),
 * {@code keys} ({@value #DEFAULT_KEYS}), {@code rate} ({@value #DEFAULT_RATE} records per second),
 * {@code partitions} of the input topic ({@value #DEFAULT_PARTITIONS}). The broker works in
 * {@code <work-dir>/kafka} (its log: {@code broker.log}), its data starts empty at every run.
 */
final class KafkaExactlyOnceDemo {
    static final String DEFAULT_RECORDS = "1000000";
    static final String DEFAULT_KEYS = "10000";
    static final String DEFAULT_RATE = "25000";
    static final String DEFAULT_PARTITIONS = "4";
    static final int DEFAULT_PARALLELISM = 2;
    /** The check keeps the expected count of every key in memory. */
    static final long MAX_KEYS = 1_000_000;
    static final String INPUT = "input";
    static final String OUTPUT = "output";
    /** After the last record was produced: how long the output may take to hold all counts. */
    private static final Duration OUTPUT_TIMEOUT = Duration.ofMinutes(3);

    private final Path workDir;
    private final Map<String, String> overrides;
    private final Map<String, String> params;
    private final int parallelism;
    private final PrintStream out;
    /** New for every run, so a work directory can be used again: its stores still hold the earlier job. */
    private final String jobId = "kafka-exactly-once-" + Long.toHexString(System.currentTimeMillis());

    KafkaExactlyOnceDemo(Path workDir, Map<String, String> overrides, Map<String, String> params, int parallelism,
            PrintStream out) {
        this.workDir = workDir.toAbsolutePath().normalize();
        this.overrides = overrides;
        this.params = params;
        this.parallelism = parallelism > 0 ? parallelism : DEFAULT_PARALLELISM;
        this.out = out;
    }

    int run() throws Exception {
        Settings demo = Settings.of(params);
        Path lib = KafkaBrokerLib.locate();
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
        Path kafkaDir = workDir.resolve("kafka");
        deleteTree(kafkaDir.resolve("data"));
        LocalKafkaBroker broker = LocalKafkaBroker.create(lib, kafkaDir, Map.of());
        LocalCluster cluster = new LocalCluster(workDir, settings, out::println);
        // The broker kills itself on exit too (its own shutdown hook): Ctrl-C leaves nothing running.
        StopOnExit stopOnExit = new StopOnExit(cluster);
        try {
            startBroker(broker, demo.partitions);
            cluster.start(2, 2, 0, Duration.ofSeconds(60));
            Configuration config = cluster.clientConfiguration();
            try (HighAvailabilityServices ha = HighAvailabilityServices.create(config);
                    ClusterClient client = new ClusterClient(config, "", Duration.ofSeconds(60));
                    KeyProducer producer = new KeyProducer(broker.bootstrapServers(), INPUT, demo.records, demo.keys,
                            demo.rate);
                    CommittedOutputWatch output = new CommittedOutputWatch(broker.bootstrapServers(), OUTPUT)) {
                LeaderRetrieval retrieval = ha.createLeaderRetrieval("");
                retrieval.start(leader -> {});
                CheckpointWatch checkpoints = new CheckpointWatch(Path.of(settings.get("execution.checkpointing.dir")),
                        jobId, KafkaExactlyOnceDemo::sourceRecordsRead);
                DemoRun job = new DemoRun(client, jobId, workDir.resolve("log"),
                        "it should run until the demo cancels it", () -> {
                            checkpoints.poll();
                            output.poll();
                            if (producer.failure() != null) {
                                throw new CliException("producing the input failed: " + producer.failure()
                                        + "; see the broker's log " + broker.directory().resolve("broker.log"));
                            }
                        });
                KafkaCrashes crashes = new KafkaCrashes(cluster, job, checkpoints, producer, out);
                out.println();
                out.printf("1. KafkaKeyedCount with parallelism %d, a checkpoint every %s, exactly-once Kafka sink (a"
                        + " transaction per subtask and checkpoint); producing %,d records over %,d keys into '%s' at"
                        + " %,d/s while it runs%n", parallelism, settings.get("execution.checkpointing.interval"),
                        demo.records, demo.keys, INPUT, demo.rate);
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                        .setJobClass(KafkaKeyedCount.class.getName()).putAllParams(jobParams(broker))
                        .setParallelism(parallelism).build());
                long submittedMs = System.currentTimeMillis();
                // A job's start takes seconds (the sink's producers initialise their transactions, the
                // broker creates its transaction log): producing from its first checkpoint on, the job
                // reads fresh records from the start instead of a backlog.
                job.await("the first checkpoint", s -> checkpoints.latest().isPresent(), Duration.ofMinutes(2));
                producer.start();

                List<KafkaCrashes.Crash> crashed = new ArrayList<>();
                crashes.awaitKillPoint(demo.records / 3, submittedMs, "the TaskManager crash");
                crashed.add(crashes.killTaskManager());
                crashes.awaitKillPoint(2 * demo.records / 3, crashed.get(0).runningAgainAtMs(), "the JobManager crash");
                crashed.add(crashes.killLeader(retrieval));
                retrieval.close();

                Outcome outcome = finish(job, client, producer, output, broker, demo, submittedMs);
                new KafkaDemoReport(out, workDir.resolve("log"), jobId).print(crashed, checkpoints, output, demo.records,
                        Math.min(demo.keys, demo.records), outcome.committed, outcome.written, outcome.problems);
                return outcome.problems.isEmpty() ? 0 : 1;
            }
        } finally {
            int stopped = cluster.stop();
            broker.close();
            stopOnExit.close();
            out.printf("Stopped %d processes and the Kafka broker (logs in %s, the broker's in %s)%n", stopped,
                    workDir.resolve("log"), kafkaDir.resolve("broker.log"));
        }
    }

    /**
     * The output topic at the end: what is wrong with it, and its records for a read_committed
     * and for a read_uncommitted consumer.
     */
    private record Outcome(List<String> problems, long committed, long written) {
    }

    /**
     * Waits until every record was produced and the output holds a count for each (or
     * {@link #OUTPUT_TIMEOUT} passed), cancels the job, reads the output topic as a
     * {@code read_committed} and a {@code read_uncommitted} consumer, and returns what is wrong
     * with the committed output ({@link KafkaKeyedCount#check}).
     */
    private Outcome finish(DemoRun job, ClusterClient client, KeyProducer producer, CommittedOutputWatch output,
            LocalKafkaBroker broker, Settings demo, long submittedMs) throws IOException, InterruptedException {
        job.await("every record produced", s -> producer.done(), Duration.ofMinutes(10));
        long producedMs = System.currentTimeMillis();
        out.printf("4. All %,d records produced in %.1f s (%,.0f/s)%n", demo.records, producer.seconds(),
                demo.records / producer.seconds());
        job.await("the output", s -> output.committed() >= demo.records
                || System.currentTimeMillis() - producedMs > OUTPUT_TIMEOUT.toMillis(), OUTPUT_TIMEOUT.plusMinutes(1));
        long outputMs = System.currentTimeMillis();
        out.printf("   %,d counts committed to '%s' %,d ms after the submission%s%n", output.committed(), OUTPUT,
                outputMs - submittedMs, output.committed() >= demo.records ? ""
                        : " (" + (demo.records - output.committed()) + " fewer than records after waiting "
                        + OUTPUT_TIMEOUT.toSeconds() + " s)");
        client.cancel(jobId);
        JobStatus end = job.await("the job's end", s -> JobRunner.isTerminal(s.getState()), Duration.ofMinutes(1));
        out.printf("   job %s%n", JobRunner.stateName(end.getState()));

        List<String> values = TopicReader.readAll(broker.bootstrapServers(), OUTPUT, true);
        long written = TopicReader.count(broker.bootstrapServers(), OUTPUT, false);
        return new Outcome(KafkaKeyedCount.check(values, KeyProducer.expectedCounts(demo.records, demo.keys), 20),
                values.size(), written);
    }

    private void startBroker(LocalKafkaBroker broker, int partitions) {
        long start = System.nanoTime();
        try {
            broker.start();
            broker.createTopic(INPUT, partitions);
            broker.createTopic(OUTPUT, partitions);
        } catch (RuntimeException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new CliException("the Kafka broker did not start: " + message + "; see "
                    + broker.directory().resolve("broker.log"));
        }
        out.printf("Kafka broker (one KRaft node) at %s up in %.2f s, topics '%s' (%d partitions) and '%s' (%d); log in"
                + " %s%n", broker.bootstrapServers(), (System.nanoTime() - start) / 1e9, INPUT, partitions, OUTPUT,
                partitions, broker.directory().resolve("broker.log"));
    }

    private Map<String, String> jobParams(LocalKafkaBroker broker) {
        Map<String, String> jobParams = new LinkedHashMap<>();
        jobParams.put("bootstrap", broker.bootstrapServers());
        jobParams.put("input", INPUT);
        jobParams.put("output", OUTPUT);
        jobParams.put("delivery", "EXACTLY_ONCE");
        jobParams.put("prefix", jobId);
        return jobParams;
    }

    /**
     * How many input records the job's Kafka source had read when a checkpoint was taken: the sum
     * of its partitions' positions (the next offset to read). The input is written without
     * transactions, so its offsets count its records.
     */
    static long sourceRecordsRead(CompletedCheckpoint checkpoint) throws IOException {
        long read = 0;
        for (byte[] split : CheckpointWatch.sourceSplits(checkpoint)) {
            read += KafkaPartitionSplit.SERIALIZER.fromBytes(split).startingOffset();
        }
        return read;
    }

    /** The demo's parameters, checked. */
    record Settings(long records, long keys, long rate, int partitions) {
        static Settings of(Map<String, String> params) {
            Map<String, String> all = new LinkedHashMap<>();
            all.put("records", DEFAULT_RECORDS);
            all.put("keys", DEFAULT_KEYS);
            all.put("rate", DEFAULT_RATE);
            all.put("partitions", DEFAULT_PARTITIONS);
            all.putAll(params);
            for (String key : all.keySet()) {
                if (!List.of("records", "keys", "rate", "partitions").contains(key)) {
                    throw new CliException("the demo takes --param records, keys, rate and partitions, not " + key);
                }
            }
            Settings settings;
            try {
                settings = new Settings(Long.parseLong(all.get("records")), Long.parseLong(all.get("keys")),
                        Long.parseLong(all.get("rate")), Integer.parseInt(all.get("partitions")));
            } catch (NumberFormatException e) {
                throw new CliException("--param records, keys, rate and partitions must be numbers, got " + all);
            }
            if (settings.records <= 0 || settings.keys <= 0 || settings.keys > MAX_KEYS || settings.rate <= 0
                    || settings.partitions <= 0) {
                throw new CliException("the demo needs --param records=N, rate=R and partitions=P above 0 and keys=K"
                        + " with 0 < K <= " + MAX_KEYS + ", got " + all);
            }
            return settings;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}

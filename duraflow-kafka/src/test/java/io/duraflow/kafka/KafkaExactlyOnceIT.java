package io.duraflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.kafka.local.LocalKafkaBroker;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.test.DuraflowCluster;
import io.duraflow.test.JobOutcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KafkaSource to KafkaSink against a real broker (a KRaft process) on an in-process cluster:
 * what a read_committed consumer of the output sees is every input record exactly once, through a
 * TaskManager crash, a savepoint restored at another parallelism with another topic list, and a
 * broker restart; and the connectors' metrics on the TaskManager's Prometheus endpoint.
 */
class KafkaExactlyOnceIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static LocalKafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() {
        broker = SharedKafkaBroker.get();
    }

    private Map<String, String> streaming() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        return config;
    }

    private static Map<String, String> copy(String topics, String output) {
        Map<String, String> params = new HashMap<>();
        params.put("bootstrap", broker.bootstrapServers());
        params.put("topics", topics);
        params.put("output", output);
        params.put("prefix", output + "-copy");
        return params;
    }

    private static List<String> values(String prefix, int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> prefix + "-" + i).toList();
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted().toList();
    }

    private static List<String> awaitOutput(String topic, int count) {
        return TestTopics.read(broker.bootstrapServers(), topic, true, TIMEOUT, values -> values.size() >= count);
    }

    @Test
    void aBoundedSourceReadsEveryCommittedRecordOnceAndNoAbortedOne() throws Exception {
        String topic = "bounded-in";
        broker.createTopic(topic, 3);
        TestTopics.produce(broker.bootstrapServers(), topic, values("plain", 0, 3000));
        transaction(topic, values("aborted", 0, 100), false);
        transaction(topic, values("committed", 0, 100), true);

        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            Map<String, String> params = copy(topic, "unused");
            params.put("bounded", "true");
            params.put("collect", "true");
            params.remove("output");
            params.remove("prefix");
            JobOutcome outcome = cluster.run(TopicCopy.class, params, 2, Map.of());

            assertThat(outcome.finished()).as("%s", outcome).isTrue();
            List<String> expected = new ArrayList<>(values("plain", 0, 3000));
            expected.addAll(values("committed", 0, 100));
            assertThat(sorted(outcome.collected("values"))).isEqualTo(sorted(expected));
        }
    }

    @Test
    void topicToTopicExactlyOnceThroughATaskManagerCrash() throws Exception {
        broker.createTopic("crash-in", 3);
        broker.createTopic("crash-out", 3);
        List<String> input = values("v", 0, 30_000);
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(TopicCopy.class, copy("crash-in", "crash-out"), 2, streaming());
            CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> paced("crash-in", input, 6_000));
            await("output committed").atMost(TIMEOUT).until(() -> !TestTopics.read(broker.bootstrapServers(),
                    "crash-out", true, Duration.ofMillis(300), values -> !values.isEmpty()).isEmpty());
            cluster.startTaskManager();
            cluster.stopTaskManager(0);
            producing.get();

            List<String> output = awaitOutput("crash-out", input.size());
            assertThat(cluster.status(jobId).getRestarts()).as("restarts").isPositive();
            cluster.cancel(jobId);
            assertThat(sorted(output)).isEqualTo(sorted(input));
        }
    }

    @Test
    void aSavepointRestoresAtAnotherParallelismWithATopicAddedAndOneRemoved() throws Exception {
        for (String topic : List.of("sp-a", "sp-b", "sp-c")) {
            broker.createTopic(topic, 2);
        }
        broker.createTopic("sp-out", 3);
        TestTopics.produce(broker.bootstrapServers(), "sp-a", values("a", 0, 1000));
        TestTopics.produce(broker.bootstrapServers(), "sp-b", values("b", 0, 1000));
        TestTopics.produce(broker.bootstrapServers(), "sp-c", values("c", 0, 1000));
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(3).build()) {
            cluster.start();
            String first = cluster.submit(TopicCopy.class, copy("sp-a,sp-b", "sp-out"), 2, streaming());
            awaitOutput("sp-out", 2000);
            String savepoint = cluster.savepoint(first, dir.resolve("savepoints").toString(), true);
            assertThat(cluster.await(first, TIMEOUT).state()).isEqualTo("CANCELED");

            TestTopics.produce(broker.bootstrapServers(), "sp-a", values("a", 1000, 2000));
            TestTopics.produce(broker.bootstrapServers(), "sp-b", values("b", 1000, 2000));
            // sp-a is dropped (its readers' positions with it), sp-c is new: read from its start.
            String second = cluster.submitFromSavepoint(TopicCopy.class, copy("sp-b,sp-c", "sp-out"), 3, streaming(),
                    savepoint, false);
            List<String> expected = Stream.of(values("a", 0, 1000), values("b", 0, 2000), values("c", 0, 1000))
                    .flatMap(List::stream).toList();
            List<String> output = awaitOutput("sp-out", expected.size());
            cluster.cancel(second);
            assertThat(sorted(output)).isEqualTo(sorted(expected));
        }
    }

    @Test
    void theJobWaitsForARestartedBrokerAndGoesOn() throws Exception {
        broker.createTopic("restart-in", 2);
        broker.createTopic("restart-out", 2);
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(TopicCopy.class, copy("restart-in", "restart-out"), 2, streaming());
            TestTopics.produce(broker.bootstrapServers(), "restart-in", values("before", 0, 2000));
            awaitOutput("restart-out", 2000);

            broker.kill();
            broker.restart();
            TestTopics.produce(broker.bootstrapServers(), "restart-in", values("after", 0, 2000));
            List<String> expected = new ArrayList<>(values("before", 0, 2000));
            expected.addAll(values("after", 0, 2000));
            List<String> output = awaitOutput("restart-out", expected.size());
            assertThat(cluster.status(jobId).getState()).isEqualTo(JobState.JOB_RUNNING);
            cluster.cancel(jobId);
            assertThat(sorted(output)).isEqualTo(sorted(expected));
        }
    }

    @Test
    void theTaskManagerShowsEachPartitionsPositionLagAndCommitsAndTheSinksTransactions() throws Exception {
        broker.createTopic("metered-in", 2);
        broker.createTopic("metered-out", 2);
        TestTopics.produce(broker.bootstrapServers(), "metered-in", values("m", 0, 1000));
        Map<String, String> params = copy("metered-in", "metered-out");
        params.put("group", "metered");
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2)
                .config("metrics.prometheus.port", "0").build()) {
            cluster.start();
            String jobId = cluster.submit(TopicCopy.class, params, 2, streaming());
            awaitOutput("metered-out", 1000);
            String url = cluster.taskManagerMetricsUrl(0);

            Map<String, PrometheusText.Family> metrics = await("every record read and committed, in the metrics")
                    .atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> PrometheusText.parse(PrometheusText.scrape(url)), m ->
                            sum(m, "duraflow_operator_kafka_source_committed_offset", jobId) == 1000
                                    && sum(m, "duraflow_operator_kafka_sink_transactions_committed_total", jobId) > 0);
            assertThat(metrics.get("duraflow_operator_kafka_source_offset").matching("job_id", jobId))
                    .as("one per partition").hasSize(2)
                    .allSatisfy(s -> assertThat(s.labels()).containsEntry("topic", "metered-in")
                            .containsKeys("partition", "taskmanager", "vertex", "subtask"));
            assertThat(sum(metrics, "duraflow_operator_kafka_source_offset", jobId)).isEqualTo(1000);
            assertThat(sum(metrics, "duraflow_operator_kafka_source_lag_records", jobId)).isZero();
            assertThat(sum(metrics, "duraflow_operator_kafka_source_offset_commits_failed_total", jobId)).isZero();
            assertThat(sum(metrics, "duraflow_operator_kafka_sink_transactions_lost_total", jobId)).isZero();
            assertThat(metrics).containsKey("duraflow_operator_kafka_sink_lingering_transactions_aborted_total");
            cluster.cancel(jobId);
        }
    }

    private static double sum(Map<String, PrometheusText.Family> metrics, String family, String jobId) {
        PrometheusText.Family found = metrics.get(family);
        return found == null ? -1 : found.sum("job_id", jobId);
    }

    /** Writes {@code values} in one transaction, committed or aborted. */
    private static void transaction(String topic, List<String> values, boolean commit) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "test-" + topic + "-" + commit);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties, new StringSerializer(),
                new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            values.forEach(value -> producer.send(new ProducerRecord<>(topic, value)));
            producer.flush();
            if (commit) {
                producer.commitTransaction();
            } else {
                producer.abortTransaction();
            }
        }
    }

    /** Writes {@code values} at about {@code perSecond}, in slices of a tenth of a second. */
    private static void paced(String topic, List<String> values, int perSecond) {
        int slice = Math.max(1, perSecond / 10);
        long start = System.nanoTime();
        for (int from = 0; from < values.size(); from += slice) {
            TestTopics.produce(broker.bootstrapServers(), topic, values.subList(from, Math.min(values.size(),
                    from + slice)));
            long dueNanos = start + (long) (from + slice) * 1_000_000_000L / perSecond;
            await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5))
                    .until(() -> System.nanoTime() >= dueNanos);
        }
    }
}

package io.duraflow.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.kafka.SharedKafkaBroker;
import io.duraflow.kafka.TestTopics;
import io.duraflow.kafka.local.LocalKafkaBroker;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.test.DuraflowCluster;
import io.duraflow.test.JobOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KafkaSink} against a real broker (a KRaft process), on an in-process Duraflow cluster. */
class KafkaSinkIT {
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
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

    private static Map<String, String> params(String topic, long records, String delivery) {
        Map<String, String> params = new HashMap<>();
        params.put("bootstrap", broker.bootstrapServers());
        params.put("topic", topic);
        params.put("records", Long.toString(records));
        params.put("rate", "4000");
        params.put("delivery", delivery);
        if (delivery.equals("EXACTLY_ONCE")) {
            params.put("prefix", topic + "-sink");
        }
        return params;
    }

    private static void assertFinishedAfterARestart(JobOutcome outcome) {
        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        assertThat(outcome.restarts()).as("restarts").isPositive();
    }

    /** The topic's committed records, read until there are {@code records}: 0 .. records - 1, each once. */
    private static List<String> assertEveryNumberOnce(String topic, long records) {
        List<String> committed = TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofSeconds(30),
                values -> values.size() >= records);
        assertThat(committed.stream().sorted().toList()).as("every number exactly once").isEqualTo(numbers(records));
        return committed;
    }

    private static List<String> numbers(long count) {
        return LongStream.range(0, count).mapToObj(Long::toString).sorted().toList();
    }

    @Test
    void exactlyOnceThroughATaskManagerCrash() throws Exception {
        String topic = "exactly-once";
        broker.createTopic(topic, 3);
        long records = 20_000;
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(SequenceToKafka.class, params(topic, records, "EXACTLY_ONCE"), 2,
                    streaming());
            await("records committed by a checkpoint").atMost(JOB_TIMEOUT)
                    .until(() -> !TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofMillis(500),
                            values -> !values.isEmpty()).isEmpty());
            assertThat(cluster.status(jobId).getState()).isEqualTo(JobState.JOB_RUNNING);
            cluster.startTaskManager();
            cluster.stopTaskManager(0);
            assertFinishedAfterARestart(cluster.await(jobId, JOB_TIMEOUT));
        }
        List<String> committed = assertEveryNumberOnce(topic, records);
        List<String> all = TestTopics.read(broker.bootstrapServers(), topic, false, Duration.ofSeconds(5),
                values -> false);
        System.out.printf("exactly once through a TaskManager crash: %d committed, %d written in all%n",
                committed.size(), all.size());
    }

    /**
     * The TaskManager dies inside a checkpoint: both sink subtasks have precommitted their
     * transactions (flushed, open) and the checkpoint cannot complete. The restore from the
     * checkpoint before must abort those transactions and write their records again, once.
     */
    @Test
    void exactlyOnceThroughATaskManagerCrashBetweenPrecommitAndCompletion() throws Exception {
        String topic = "crash-in-checkpoint";
        broker.createTopic(topic, 3);
        long records = 16_000;
        Map<String, String> params = params(topic, records, "EXACTLY_ONCE");
        params.put("gated", "true");
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(SequenceToKafka.class, params, 2, streaming());
            await("records committed by a checkpoint").atMost(JOB_TIMEOUT)
                    .until(() -> !TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofMillis(500),
                            values -> !values.isEmpty()).isEmpty());
            int committedBefore = TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofMillis(500),
                    values -> false).size();
            PrecommitGate.close();
            try {
                await("both sink subtasks precommitted, the checkpoint held").atMost(JOB_TIMEOUT)
                        .until(() -> PrecommitGate.held() >= 2);
                List<String> uncommitted = TestTopics.read(broker.bootstrapServers(), topic, false,
                        Duration.ofMillis(500), values -> false);
                assertThat(uncommitted.size()).as("records written in the held transactions")
                        .isGreaterThan(committedBefore);
                cluster.startTaskManager();
                cluster.stopTaskManager(0);
            } finally {
                PrecommitGate.open();
            }
            assertFinishedAfterARestart(cluster.await(jobId, JOB_TIMEOUT));
        }
        assertEveryNumberOnce(topic, records);
    }

    @Test
    void atLeastOnceLosesNothingThroughATaskManagerCrash() throws Exception {
        String topic = "at-least-once";
        broker.createTopic(topic, 2);
        long records = 12_000;
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(SequenceToKafka.class, params(topic, records, "AT_LEAST_ONCE"), 2,
                    streaming());
            await("records written").atMost(JOB_TIMEOUT).until(() -> !TestTopics.read(broker.bootstrapServers(),
                    topic, true, Duration.ofMillis(500), values -> !values.isEmpty()).isEmpty());
            cluster.startTaskManager();
            cluster.stopTaskManager(0);
            assertThat(cluster.await(jobId, JOB_TIMEOUT).finished()).isTrue();
        }
        List<String> written = TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofSeconds(30),
                values -> values.stream().distinct().count() >= records);
        assertThat(written.stream().distinct().sorted().toList()).isEqualTo(numbers(records));
    }

    @Test
    void aTransactionAnEarlierRunLeftOpenIsAbortedAtTheStartSoReadersAreNotHeldBack() throws Exception {
        String topic = "lingering";
        broker.createTopic(topic, 1);
        // As if subtask 5 of a run at parallelism 8 died in a transaction: subtask 1 of 2 owns it now.
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-sink-5-0");
        KafkaProducer<byte[], byte[]> zombie = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer());
        zombie.initTransactions();
        zombie.beginTransaction();
        zombie.send(new ProducerRecord<>(topic, "never committed".getBytes(StandardCharsets.UTF_8)));
        zombie.flush();
        zombie.close(Duration.ZERO);

        long records = 2_000;
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            JobOutcome outcome = cluster.run(SequenceToKafka.class, params(topic, records, "EXACTLY_ONCE"), 2,
                    streaming());
            assertThat(outcome.finished()).as("%s", outcome).isTrue();
        }
        // Left open, the transaction would hide everything after it from read_committed for 15 minutes.
        List<String> committed = TestTopics.read(broker.bootstrapServers(), topic, true, Duration.ofSeconds(30),
                values -> values.size() >= records);
        assertThat(committed.stream().sorted().toList()).isEqualTo(numbers(records));
    }
}

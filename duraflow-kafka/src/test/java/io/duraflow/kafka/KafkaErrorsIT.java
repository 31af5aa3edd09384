package io.duraflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.kafka.local.LocalKafkaBroker;
import io.duraflow.kafka.source.KafkaRecordDeserializer;
import io.duraflow.kafka.source.KafkaSource;
import io.duraflow.test.DuraflowCluster;
import io.duraflow.test.JobOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a user sees when a Kafka job cannot run: one line naming the topic, the record or the brokers. */
class KafkaErrorsIT {
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = SharedKafkaBroker.get();
    }

    /** A record of JSON the source reads with {@code json(Order.class)}. */
    public record Order(String id, long amount) {}

    /**
     * Reads {@code topics} ({@code json=true}: as {@link Order} JSON) into a collection, bounded with
     * {@code bounded=true}.
     */
    public static final class ReadTopic implements DuraflowJob {
        @Override
        public void build(JobBuilder job, JobParameters params) {
            var source = KafkaSource.<Object>builder().bootstrapServers(params.getRequired("bootstrap"))
                    .topics(params.getRequired("topics"))
                    .property("default.api.timeout.ms", params.getString("api-timeout-ms", "60000"));
            if (params.getBoolean("bounded", false)) {
                source.bounded(io.duraflow.kafka.source.OffsetsInitializer.latest());
            }
            if (params.getBoolean("json", false)) {
                job.fromSource("kafka", source.deserializer(cast(KafkaRecordDeserializer.json(Order.class))).build())
                        .collect("values");
            } else {
                job.fromSource("kafka", source.deserializer(cast(KafkaRecordDeserializer.strings())).build())
                        .collect("values");
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static KafkaRecordDeserializer<Object> cast(KafkaRecordDeserializer<?> deserializer) {
            return (KafkaRecordDeserializer) deserializer;
        }
    }

    /** Runs {@link ReadTopic}; {@code restarts}: whether the job restarts after failures (the default strategy). */
    private static JobOutcome read(Map<String, String> params, boolean restarts) throws Exception {
        try (DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            cluster.start();
            String jobId = cluster.submit(ReadTopic.class, params, 1, restarts
                    ? Map.of("execution.runtime-mode", "streaming")
                    : Map.of("execution.runtime-mode", "streaming", "restart-strategy.type", "none"));
            return cluster.await(jobId, Duration.ofSeconds(30));
        }
    }

    @Test
    void aMissingTopicIsNamed() throws Exception {
        JobOutcome outcome = read(Map.of("bootstrap", broker.bootstrapServers(), "topics", "no-such-topic"), false);

        assertThat(outcome.state()).isEqualTo("FAILED");
        assertThat(outcome.failure()).contains("topic 'no-such-topic' not found on " + broker.bootstrapServers())
                .contains("create it");
    }

    @Test
    void aMissingTopicOfABoundedSourceIsNamed() throws Exception {
        JobOutcome outcome = read(Map.of("bootstrap", broker.bootstrapServers(), "topics", "no-such-bounded-topic",
                "bounded", "true"), false);

        assertThat(outcome.state()).isEqualTo("FAILED");
        assertThat(outcome.failure()).contains("topic 'no-such-bounded-topic' not found on "
                + broker.bootstrapServers()).contains("create it");
    }

    @Test
    void aRecordTheDeserializerRejectsIsNamedAndNotRetried() throws Exception {
        broker.createTopic("bad-json", 1);
        TestTopics.produce(broker.bootstrapServers(), "bad-json", List.of("{\"id\": \"a\", \"amount\": 1}",
                "not json"));
        JobOutcome outcome = read(Map.of("bootstrap", broker.bootstrapServers(), "topics", "bad-json",
                "json", "true", "bounded", "true"), true);

        assertThat(outcome.state()).isEqualTo("FAILED");
        assertThat(outcome.failure()).contains("cannot deserialize the value at bad-json-0 offset 1 with json(");
        assertThat(outcome.restarts()).isZero();
    }

    @Test
    void anUnreachableClusterIsNamed() throws Exception {
        JobOutcome outcome = read(Map.of("bootstrap", "127.0.0.1:1", "topics", "anything", "api-timeout-ms", "1500"), false);

        assertThat(outcome.state()).isEqualTo("FAILED");
        assertThat(outcome.failure()).contains("127.0.0.1:1");
    }
}

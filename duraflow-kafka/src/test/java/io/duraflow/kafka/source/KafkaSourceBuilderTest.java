package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.source.Boundedness;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

class KafkaSourceBuilderTest {
    private static KafkaSourceBuilder<String> valid() {
        return KafkaSource.<String>builder().bootstrapServers("broker-1:9092").topics("orders")
                .deserializer(KafkaRecordDeserializer.strings());
    }

    private static void assertRejected(UnaryOperator<KafkaSourceBuilder<String>> change, String message) {
        assertThatThrownBy(() -> change.apply(valid()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void namesTheMissingOrConflictingSetting() {
        assertRejected(b -> b.bootstrapServers(null),
                "the Kafka source needs bootstrapServers(\"host:9092\"): the brokers to connect to");
        assertRejected(b -> b.topics((String[]) null),
                "the Kafka source needs topics(...) or topicPattern(...): what to read");
        assertRejected(b -> b.topicPattern(Pattern.compile("o.*")),
                "the Kafka source has both topics(...) and topicPattern(...); use one of them");
        assertRejected(b -> b.topics(), "the Kafka source has topics() without a topic; name at least one");
        assertRejected(b -> b.topics("a", "a"), "the Kafka source lists topic 'a' twice in topics(...)");
        assertRejected(b -> b.deserializer(null),
                "the Kafka source needs deserializer(...), e.g. KafkaRecordDeserializer.strings()");
        assertRejected(b -> b.startingOffsets(OffsetsInitializer.committed(OffsetsInitializer.ResetStrategy.EARLIEST)),
                "the Kafka source reads committed offsets but has no groupId; set groupId(...) to the group whose"
                        + " offsets to read");
        assertRejected(b -> b.commitOffsetsOnCheckpoint(true),
                "the Kafka source commits offsets on checkpoints but has no groupId; set groupId(...) or"
                        + " commitOffsetsOnCheckpoint(false)");
        assertRejected(b -> b.pollTimeout(Duration.ZERO), "the Kafka source has pollTimeout PT0S; use 1 ms to 1 s");
    }

    @Test
    void namesTheWrongProperty() {
        assertRejected(b -> b.property("enable.auto.commit", "true"),
                "the Kafka source has enable.auto.commit=true, but it is always false: the positions are in"
                        + " checkpoints; use commitOffsetsOnCheckpoint(true) to show them in the group");
        assertRejected(b -> b.property("group.id", "g"), "the Kafka source has property group.id; set groupId(...) instead");
        assertRejected(b -> b.property("value.deserializer", "x"),
                "the Kafka source has property value.deserializer; set deserializer(...) instead");
        assertRejected(b -> b.property("fetch.max.bites", "1"),
                "the Kafka source has unknown consumer property 'fetch.max.bites'; see the Kafka consumer configs"
                        + " for the names");
        assertThatThrownBy(() -> valid().property("isolation.level", "read_dirty").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the Kafka source has an invalid consumer property: Invalid value read_dirty"
                        + " for configuration isolation.level");
    }

    @Test
    void boundedOnlyWithStoppingOffsets() {
        assertThat(valid().build().boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(valid().bounded(OffsetsInitializer.latest()).build().boundedness()).isEqualTo(Boundedness.BOUNDED);
    }

    @Test
    void theConsumerNeverAutoCommitsAndReadsCommittedByDefault() {
        Properties consumer = valid().groupId("g").property("max.poll.records", "100").build().consumerProperties();
        assertThat(consumer).containsEntry("enable.auto.commit", "false")
                .containsEntry("isolation.level", "read_committed").containsEntry("group.id", "g")
                .containsEntry("bootstrap.servers", "broker-1:9092").containsEntry("max.poll.records", "100");
        assertThat(valid().property("isolation.level", "read_uncommitted").build().consumerProperties())
                .containsEntry("isolation.level", "read_uncommitted");
        assertThat(valid().property("max.poll.records", "100").build().adminProperties())
                .containsOnlyKeys("bootstrap.servers");
    }

    @Test
    void theDescriptionIsDeterministicAndHidesSecrets() {
        KafkaSource<String> source = valid().groupId("g")
                .startingOffsets(OffsetsInitializer.timestamp(5))
                .properties(Map.of("ssl.key.password", "hunter2", "sasl.jaas.config", "x password=\"hunter2\";",
                        "security.protocol", "SASL_SSL"))
                .build();
        assertThat(source.description())
                .isEqualTo("kafka(broker-1:9092,topics=[orders],group=g,start=timestamp(5),stop=none,"
                        + "discovery=30000ms,commit=true,poll=10ms,properties={sasl.jaas.config=<hidden>, "
                        + "security.protocol=SASL_SSL, ssl.key.password=<hidden>},deserializer=strings)")
                .isEqualTo(valid().groupId("g").startingOffsets(OffsetsInitializer.timestamp(5))
                        .property("security.protocol", "SASL_SSL").property("ssl.key.password", "other")
                        .property("sasl.jaas.config", "y").build().description())
                .doesNotContain("hunter2");
    }

    @Test
    void createsReadersWithTheGivenConsumers() throws Exception {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        Properties[] seen = new Properties[1];
        KafkaSource<String> source = valid().build().withClients(properties -> {
            seen[0] = properties;
            return consumer;
        }, properties -> new FakeKafkaMetadata());
        try (var reader = source.createReader(new FakeReaderContext())) {
            reader.addSplits(java.util.List.of(new KafkaPartitionSplit("orders", 0, 3, KafkaPartitionSplit.NO_STOPPING_OFFSET)));
            assertThat(consumer.assignment()).hasSize(1);
        }
        assertThat(seen[0]).containsEntry("bootstrap.servers", "broker-1:9092");
        assertThat(consumer.closed()).isTrue();
    }
}

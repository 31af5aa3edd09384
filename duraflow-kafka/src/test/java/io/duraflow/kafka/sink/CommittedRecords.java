package io.duraflow.kafka.sink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic's values as a {@code read_committed} (or uncommitted) consumer sees them, for tests. */
final class CommittedRecords {
    private CommittedRecords() {}

    /**
     * The values from the beginning, polled until {@code done} holds for them (checked after every
     * poll) or {@code timeout} passed; returns what it read either way.
     */
    static List<String> read(String bootstrap, String topic, boolean committedOnly, Duration timeout,
            Predicate<List<String>> done) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && !done.test(values)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}

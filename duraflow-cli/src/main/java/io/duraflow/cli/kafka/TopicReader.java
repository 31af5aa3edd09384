package io.duraflow.cli.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of a topic from its beginning, as a {@code read_committed} consumer (what
 * a downstream reader of an exactly-once sink sees: records of committed transactions only) or a
 * {@code read_uncommitted} one (every record written, aborted transactions' too). Partitions are
 * assigned, not subscribed: no consumer group, nothing committed to the broker. Not thread-safe
 * (a Kafka consumer is not): one thread uses it.
 */
public final class TopicReader implements AutoCloseable {
    private final KafkaConsumer<String, String> consumer;
    private final List<TopicPartition> partitions;

    public TopicReader(String bootstrap, String topic, boolean committedOnly) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50_000);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "demo-" + topic + (committedOnly ? "-committed" : "-all"));
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Polls once, waiting at most {@code timeout}; hands every value read to {@code values}, returns how many. */
    public int poll(Duration timeout, Consumer<String> values) {
        int count = 0;
        for (ConsumerRecord<String, String> record : consumer.poll(timeout)) {
            values.accept(record.value());
            count++;
        }
        return count;
    }

    /**
     * Whether this reader has read up to the partitions' ends as they are now: for
     * {@code read_committed}, their last stable offset (before the first open transaction).
     */
    public boolean atEnd() {
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        return partitions.stream().allMatch(p -> consumer.position(p, Duration.ofSeconds(30)) >= ends.get(p));
    }

    /** Every value of the topic as it is now, read to its end ({@link #atEnd}). */
    public static List<String> readAll(String bootstrap, String topic, boolean committedOnly) {
        List<String> values = new ArrayList<>();
        try (TopicReader reader = new TopicReader(bootstrap, topic, committedOnly)) {
            while (!reader.atEnd()) {
                reader.poll(Duration.ofMillis(200), values::add);
            }
        }
        return values;
    }

    /** How many records the topic holds as it is now, read to its end ({@link #atEnd}). */
    public static long count(String bootstrap, String topic, boolean committedOnly) {
        long count = 0;
        try (TopicReader reader = new TopicReader(bootstrap, topic, committedOnly)) {
            while (!reader.atEnd()) {
                count += reader.poll(Duration.ofMillis(200), value -> {});
            }
        }
        return count;
    }

    @Override
    public void close() {
        consumer.close(Duration.ZERO);
    }
}

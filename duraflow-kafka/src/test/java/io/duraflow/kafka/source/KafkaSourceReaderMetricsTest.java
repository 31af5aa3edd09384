package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.metrics.MetricSample;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaSourceReaderMetricsTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    private final FakeReaderContext context = new FakeReaderContext();
    private MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");

    private KafkaSourceReader<String> reader() {
        var settings = new KafkaSourceReader.Settings("broker-1:9092",
                new KafkaSubscription.Topics(List.of("orders")), "totals", true, Duration.ofMillis(10), 60_000);
        return new KafkaSourceReader<>(context, consumer, KafkaRecordDeserializer.strings(), settings, () -> 0);
    }

    private void add(TopicPartition partition, long from, long to) {
        for (long offset = from; offset < to; offset++) {
            consumer.addRecord(new ConsumerRecord<>(partition.topic(), partition.partition(), offset, null,
                    ("v" + offset).getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** The sampled values by name and partition, e.g. {@code kafka_source_offset/orders-0}. */
    private Map<String, Double> sample() {
        Map<String, Double> values = new LinkedHashMap<>();
        for (MetricSample sample : context.metrics.sample()) {
            String key = sample.labelNames().isEmpty() ? sample.name()
                    : sample.name() + "/" + String.join("-", sample.labelValues());
            values.put(key, sample.value());
        }
        return values;
    }

    @Test
    void eachPartitionShowsItsPositionLagAndCommittedOffset() throws Exception {
        KafkaSourceReader<String> reader = reader();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0), KafkaPartitionSplit.unbounded(ORDERS_1, 10)));
        consumer.updateEndOffsets(Map.of(ORDERS_0, 5L, ORDERS_1, 10L));
        add(ORDERS_0, 0, 3);

        reader.pollNext(new RecordingOutput<>());

        assertThat(sample()).containsEntry("kafka_source_offset/orders-0", 3.0)
                .containsEntry("kafka_source_lag_records/orders-0", 2.0)
                .containsEntry("kafka_source_offset/orders-1", 10.0)
                .containsEntry("kafka_source_lag_records/orders-1", 0.0)
                .containsEntry("kafka_source_offset_commits_failed", 0.0)
                .doesNotContainKey("kafka_source_committed_offset/orders-0");

        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);

        assertThat(sample()).containsEntry("kafka_source_committed_offset/orders-0", 3.0)
                .containsEntry("kafka_source_committed_offset/orders-1", 10.0);
    }

    @Test
    void aFinishedBoundedPartitionKeepsItsFinalOffsetWithNoLag() throws Exception {
        KafkaSourceReader<String> reader = reader();
        reader.addSplits(List.of(new KafkaPartitionSplit("orders", 0, 0, 2)));
        add(ORDERS_0, 0, 4);

        reader.pollNext(new RecordingOutput<>());

        assertThat(consumer.assignment()).isEmpty();
        assertThat(sample()).containsEntry("kafka_source_offset/orders-0", 2.0)
                .containsEntry("kafka_source_lag_records/orders-0", 0.0);
    }

    @Test
    void aFailedCommitIsCountedAndLeavesTheCommittedOffsetAlone() throws Exception {
        consumer = new CommitRefusingConsumer();
        KafkaSourceReader<String> reader = reader();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 1);
        reader.pollNext(new RecordingOutput<>());
        reader.snapshotState(1);

        reader.notifyCheckpointComplete(1);

        assertThat(sample()).containsEntry("kafka_source_offset_commits_failed", 1.0)
                .doesNotContainKey("kafka_source_committed_offset/orders-0");
    }
}

package io.duraflow.kafka.source;

import io.duraflow.api.metrics.Counter;
import io.duraflow.api.metrics.MetricGroup;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link KafkaSourceReader} exports, per partition it was assigned (labels {@code topic} and
 * {@code partition}):
 *
 * <pre>
 *   kafka_source_offset               the next offset the reader reads (its position in checkpoints)
 *   kafka_source_lag_records          records after that position, as the consumer last learned from a
 *                                     fetch (with read_committed: up to the last stable offset); none
 *                                     until a fetch told it, 0 once a bounded partition is finished
 *   kafka_source_committed_offset     the offset last committed to the consumer group (on checkpoint
 *                                     completion); none before the first commit
 * </pre>
 *
 * and {@code kafka_source_offset_commits_failed}, commits to the group that failed (they serve
 * monitoring only). Gauges are read on the task thread, like the reader's own fields.
 */
final class KafkaSourceReaderMetrics {
    private final MetricGroup group;
    private final Consumer<byte[], byte[]> consumer;
    private final Counter commitsFailed;
    private final Set<TopicPartition> registered = new HashSet<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();

    KafkaSourceReaderMetrics(MetricGroup group, Consumer<byte[], byte[]> consumer) {
        this.group = group;
        this.consumer = consumer;
        this.commitsFailed = group.counter("kafka_source_offset_commits_failed", "Commits of a checkpoint's"
                + " offsets to the consumer group that failed (they serve monitoring only)");
    }

    /**
     * A partition was assigned to the reader; {@code position} gives its next offset while it is read
     * or its final one once finished (null if neither), {@code reading} whether it is still read.
     */
    void assigned(TopicPartition partition, Function<TopicPartition, Long> position,
            Predicate<TopicPartition> reading) {
        if (!registered.add(partition)) {
            return;
        }
        MetricGroup partitionGroup = group.withLabel("topic", partition.topic())
                .withLabel("partition", Integer.toString(partition.partition()));
        partitionGroup.gauge("kafka_source_offset", "Next offset the Kafka source reads in the partition", () -> {
            Long offset = position.apply(partition);
            return offset == null ? Double.NaN : offset;
        });
        partitionGroup.gauge("kafka_source_lag_records", "Records of the partition after the Kafka source's"
                + " position, as its consumer last learned from a fetch", () -> lag(partition, reading.test(partition)));
        partitionGroup.gauge("kafka_source_committed_offset", "Offset the Kafka source last committed to its"
                + " consumer group for the partition", () -> {
                    Long offset = committed.get(partition);
                    return offset == null ? Double.NaN : offset;
                });
    }

    private double lag(TopicPartition partition, boolean reading) {
        if (!reading) {
            return 0;
        }
        try {
            OptionalLong lag = consumer.currentLag(partition);
            return lag.isPresent() ? lag.getAsLong() : Double.NaN;
        } catch (IllegalStateException | KafkaException e) {
            return Double.NaN;
        }
    }

    /** The group took these offsets (the commit's callback, on the task thread). */
    void committed(Map<TopicPartition, Long> offsets) {
        committed.putAll(offsets);
    }

    void commitFailed() {
        commitsFailed.inc();
    }
}

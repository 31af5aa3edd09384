package io.duraflow.kafka.source;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link KafkaMetadata} from a Kafka {@link Admin} client. The client's own timeouts ({@code
 * default.api.timeout.ms}) bound every call; a failure comes out as the cause of the client's
 * future (a {@code TimeoutException} when no broker answers, an {@code
 * UnknownTopicOrPartitionException} for a topic that is gone).
 */
final class AdminKafkaMetadata implements KafkaMetadata {
    private final Admin admin;
    private final IsolationLevel isolationLevel;

    AdminKafkaMetadata(Admin admin, IsolationLevel isolationLevel) {
        this.admin = admin;
        this.isolationLevel = isolationLevel;
    }

    /** A client for the source's connection properties (its consumer properties that the Admin client knows). */
    static AdminKafkaMetadata create(Properties connection, IsolationLevel isolationLevel) {
        return new AdminKafkaMetadata(Admin.create(connection), isolationLevel);
    }

    @Override
    public Set<String> topicNames() throws Exception {
        return get(admin.listTopics(new ListTopicsOptions().listInternal(true)).names());
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics) throws Exception {
        Map<String, TopicDescription> described = get(admin.describeTopics(topics).allTopicNames());
        Map<String, Integer> counts = new HashMap<>();
        described.forEach((topic, description) -> counts.put(topic, description.partitions().size()));
        return counts;
    }

    @Override
    public Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions) throws Exception {
        return listOffsets(partitions, OffsetSpec.earliest());
    }

    @Override
    public Map<TopicPartition, Long> latestOffsets(Collection<TopicPartition> partitions) throws Exception {
        return listOffsets(partitions, OffsetSpec.latest());
    }

    @Override
    public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, long timestampMs)
            throws Exception {
        return listOffsets(partitions, OffsetSpec.forTimestamp(timestampMs));
    }

    /** Offsets by partition; a partition for which the broker has none (offset -1) is absent. */
    private Map<TopicPartition, Long> listOffsets(Collection<TopicPartition> partitions, OffsetSpec spec)
            throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(partition -> request.put(partition, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answers =
                get(admin.listOffsets(request, new ListOffsetsOptions(isolationLevel)).all());
        Map<TopicPartition, Long> offsets = new HashMap<>();
        answers.forEach((partition, info) -> {
            if (info.offset() >= 0) {
                offsets.put(partition, info.offset());
            }
        });
        return offsets;
    }

    @Override
    public Map<TopicPartition, Long> committedOffsets(String groupId, Collection<TopicPartition> partitions)
            throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed =
                get(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset != null && offset.offset() >= 0) {
                offsets.put(partition, offset.offset());
            }
        }
        return offsets;
    }

    /** The future's value, or the cause of its failure (the Kafka exception that says what went wrong). */
    private static <T> T get(KafkaFuture<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}

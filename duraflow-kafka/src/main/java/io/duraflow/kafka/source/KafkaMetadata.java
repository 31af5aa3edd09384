package io.duraflow.kafka.source;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link KafkaSource}'s enumerator asks the cluster: topics, their partitions and offsets.
 * The enumerator's rules are tested against a fake of this; {@link AdminKafkaMetadata} asks a
 * Kafka {@code Admin} client. Every method blocks (up to the client's
 * {@code default.api.timeout.ms}), so only the enumerator's worker thread calls them.
 */
public interface KafkaMetadata extends AutoCloseable {
    /** The names of the topics in the cluster, internal topics included. */
    Set<String> topicNames() throws Exception;

    /** The number of partitions of each of {@code topics}, which exist. */
    Map<String, Integer> partitionCounts(Collection<String> topics) throws Exception;

    /** The first offset still in each partition (the log start offset). */
    Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions) throws Exception;

    /**
     * The end of each partition: the offset the next record will get, or, with {@code
     * isolation.level=read_committed}, the last stable offset (records past it are in open
     * transactions and not readable yet).
     */
    Map<TopicPartition, Long> latestOffsets(Collection<TopicPartition> partitions) throws Exception;

    /**
     * The first offset of each partition whose record has a timestamp at or after {@code
     * timestampMs}; a partition without such a record is absent.
     */
    Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, long timestampMs)
            throws Exception;

    /** The offsets group {@code groupId} committed; a partition without a committed offset is absent. */
    Map<TopicPartition, Long> committedOffsets(String groupId, Collection<TopicPartition> partitions)
            throws Exception;

    @Override
    default void close() throws Exception {}
}

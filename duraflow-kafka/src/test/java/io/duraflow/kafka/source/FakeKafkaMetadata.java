package io.duraflow.kafka.source;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A cluster in memory: topics with partition counts; a partition's earliest offset is 0 unless
 * set, its latest 100 unless set; timestamps map to offsets per partition; committed offsets per group.
 */
final class FakeKafkaMetadata implements KafkaMetadata {
    final Map<String, Integer> topics = new TreeMap<>();
    final Map<TopicPartition, Long> earliest = new HashMap<>();
    final Map<TopicPartition, Long> latest = new HashMap<>();
    /** Offset of the first record at or after timestamp, for every timestamp: here, one offset per partition. */
    final Map<TopicPartition, Long> forTimestamp = new HashMap<>();
    final Map<TopicPartition, Long> committed = new HashMap<>();
    String committedGroup;
    /** Whether every call fails as an unreachable cluster does. */
    boolean unreachable;
    int calls;

    FakeKafkaMetadata topic(String name, int partitions) {
        topics.put(name, partitions);
        return this;
    }

    private void call() {
        calls++;
        if (unreachable) {
            throw new TimeoutException("Timed out waiting for a node assignment. Call: listTopics");
        }
    }

    @Override
    public Set<String> topicNames() {
        call();
        return Set.copyOf(topics.keySet());
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> names) {
        call();
        Map<String, Integer> counts = new HashMap<>();
        for (String name : names) {
            Integer count = topics.get(name);
            if (count == null) {
                throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException(name);
            }
            counts.put(name, count);
        }
        return counts;
    }

    @Override
    public Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions) {
        call();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        partitions.forEach(p -> offsets.put(p, earliest.getOrDefault(p, 0L)));
        return offsets;
    }

    @Override
    public Map<TopicPartition, Long> latestOffsets(Collection<TopicPartition> partitions) {
        call();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        partitions.forEach(p -> offsets.put(p, latest.getOrDefault(p, 100L)));
        return offsets;
    }

    @Override
    public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, long timestampMs) {
        call();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        partitions.forEach(p -> {
            if (forTimestamp.containsKey(p)) {
                offsets.put(p, forTimestamp.get(p));
            }
        });
        return offsets;
    }

    @Override
    public Map<TopicPartition, Long> committedOffsets(String groupId, Collection<TopicPartition> partitions) {
        call();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        if (groupId.equals(committedGroup)) {
            partitions.forEach(p -> {
                if (committed.containsKey(p)) {
                    offsets.put(p, committed.get(p));
                }
            });
        }
        return offsets;
    }
}

package io.duraflow.kafka.source;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * One round of partition discovery, run on the enumerator's worker thread: lists the subscribed
 * topics and their partitions and makes a split for each partition not known yet, with its
 * starting (and, in bounded mode, stopping) offset resolved in the same work. Touches no state
 * of the enumerator: it gets what it needs as arguments.
 *
 * <p>Where a new partition starts, by rule:
 * <ol>
 *   <li>In the first discovery of a new enumerator (the job's start): the configured starting
 *       offsets.</li>
 *   <li>In the first discovery of a restored enumerator: the configured starting offsets for a
 *       topic the checkpointed subscription did not match (a topic added to the job's
 *       subscription); the earliest offset for a topic it matched (a partition added, or a topic
 *       created, while the job was down: its records must not be skipped).</li>
 *   <li>In every later discovery: the earliest offset, as Flink does. The partition appeared while
 *       the job ran, after its start; whatever the starting offsets say (latest, a timestamp),
 *       reading it from its start is the only way not to skip records produced between its
 *       creation and its discovery.</li>
 * </ol>
 *
 * @param previousSubscription the restored state's subscription; null for a new enumerator
 * @param stopping the stopping offsets of a bounded source; null for an unbounded one
 */
record PartitionDiscovery(KafkaSubscription subscription, KafkaSubscription previousSubscription,
        OffsetsInitializer starting, OffsetsInitializer stopping, String groupId) {

    /** What a round found: splits for the new partitions (sorted), and listed topics that do not exist. */
    record Result(List<KafkaPartitionSplit> newSplits, List<String> missingTopics) {
        Result {
            newSplits = List.copyOf(newSplits);
            missingTopics = List.copyOf(missingTopics);
        }
    }

    /**
     * @param known partitions assigned already (their splits belong to readers)
     * @param initial whether this is the enumerator's first discovery (rules 1 and 2)
     */
    Result discover(KafkaMetadata metadata, Set<TopicPartition> known, boolean initial) throws Exception {
        Set<String> present = metadata.topicNames();
        List<String> subscribed = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        if (subscription instanceof KafkaSubscription.Topics topics) {
            for (String topic : topics.names()) {
                (present.contains(topic) ? subscribed : missing).add(topic);
            }
        } else {
            for (String topic : new TreeSet<>(present)) {
                if (subscription.matches(topic)) {
                    subscribed.add(topic);
                }
            }
        }
        List<TopicPartition> fromStart = new ArrayList<>();
        List<TopicPartition> fromEarliest = new ArrayList<>();
        Map<String, Integer> counts = subscribed.isEmpty() ? Map.of() : metadata.partitionCounts(subscribed);
        for (Map.Entry<String, Integer> topic : counts.entrySet()) {
            boolean configuredStart = initial
                    && (previousSubscription == null || !previousSubscription.matches(topic.getKey()));
            for (int p = 0; p < topic.getValue(); p++) {
                TopicPartition partition = new TopicPartition(topic.getKey(), p);
                if (!known.contains(partition)) {
                    (configuredStart ? fromStart : fromEarliest).add(partition);
                }
            }
        }
        List<KafkaPartitionSplit> splits = new ArrayList<>();
        addSplits(splits, fromStart, starting.resolve(fromStart, metadata, groupId), metadata);
        addSplits(splits, fromEarliest, OffsetsInitializer.earliest().resolve(fromEarliest, metadata, groupId),
                metadata);
        splits.sort(Comparator.comparing(KafkaPartitionSplit::topic).thenComparingInt(KafkaPartitionSplit::partition));
        return new Result(splits, missing);
    }

    private void addSplits(List<KafkaPartitionSplit> splits, List<TopicPartition> partitions,
            Map<TopicPartition, Long> startOffsets, KafkaMetadata metadata) throws Exception {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> stopOffsets = stopping == null ? Map.of()
                : stopping.resolve(partitions, metadata, groupId);
        for (TopicPartition partition : partitions) {
            Long start = startOffsets.get(partition);
            if (start == null) {
                throw new IllegalStateException("the cluster returned no starting offset for " + partition);
            }
            long stop = KafkaPartitionSplit.NO_STOPPING_OFFSET;
            if (stopping != null) {
                Long found = stopOffsets.get(partition);
                if (found == null) {
                    throw new IllegalStateException("the cluster returned no stopping offset for " + partition);
                }
                stop = found;
            }
            splits.add(new KafkaPartitionSplit(partition.topic(), partition.partition(), start, stop));
        }
    }
}

package io.duraflow.kafka.source;

import io.duraflow.api.types.ChecksummedBytes;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link KafkaSourceEnumerator} checkpoints: the subscription it had and every partition it
 * has assigned. A partition's position is not here: once assigned, the partition belongs to a
 * reader and its position to the reader's checkpoint (the runtime orders assignments against
 * checkpoint triggers, so an assigned partition is in exactly one of the two). A restored
 * enumerator therefore assigns only partitions not listed here.
 *
 * <p>Format, version 1 (integers are {@code DataWriter} varints, strings its UTF-8 strings):
 * <pre>
 *   varint version (1)
 *   byte kind (0 = topic list, 1 = pattern)
 *     kind 0: varint n | n x string topic
 *     kind 1: string regex | varint java.util.regex flags
 *   varint t                         topics with assigned partitions, sorted by name
 *   t x { string topic | varint k | k x varint partition (ascending) }
 *   int32 CRC32C (big-endian) of every byte above
 * </pre>
 */
record KafkaEnumeratorState(KafkaSubscription subscription, SortedMap<String, SortedSet<Integer>> assigned) {
    static final int VERSION = 1;

    KafkaEnumeratorState {
        SortedMap<String, SortedSet<Integer>> copy = new TreeMap<>();
        assigned.forEach((topic, partitions) -> copy.put(topic, new TreeSet<>(partitions)));
        assigned = copy;
    }

    static KafkaEnumeratorState of(KafkaSubscription subscription, Collection<TopicPartition> partitions) {
        SortedMap<String, SortedSet<Integer>> byTopic = new TreeMap<>();
        for (TopicPartition partition : partitions) {
            byTopic.computeIfAbsent(partition.topic(), t -> new TreeSet<>()).add(partition.partition());
        }
        return new KafkaEnumeratorState(subscription, byTopic);
    }

    Set<TopicPartition> partitions() {
        Set<TopicPartition> all = new java.util.LinkedHashSet<>();
        assigned.forEach((topic, partitions) -> partitions.forEach(p -> all.add(new TopicPartition(topic, p))));
        return all;
    }

    byte[] toBytes() {
        DataWriter out = new DataWriter(64 + 16 * assigned.size());
        out.writeVarInt(VERSION);
        subscription.write(out);
        out.writeVarInt(assigned.size());
        for (Map.Entry<String, SortedSet<Integer>> topic : assigned.entrySet()) {
            out.writeString(topic.getKey());
            out.writeVarInt(topic.getValue().size());
            topic.getValue().forEach(out::writeVarInt);
        }
        return ChecksummedBytes.seal(out);
    }

    /**
     * Reads {@link #toBytes()} output.
     *
     * @param source names the source in error messages
     * @throws CorruptDataException if the bytes are damaged or of a version this build does not read
     */
    static KafkaEnumeratorState fromBytes(byte[] bytes, String source) {
        String what = "the checkpointed state of the Kafka source enumerator of " + source;
        DataReader in = ChecksummedBytes.open(bytes, VERSION, what);
        try {
            KafkaSubscription subscription = KafkaSubscription.read(in);
            int topicCount = in.readVarInt();
            SortedMap<String, SortedSet<Integer>> assigned = new TreeMap<>();
            for (int i = 0; i < topicCount; i++) {
                String topic = in.readString();
                int count = in.readVarInt();
                SortedSet<Integer> partitions = new TreeSet<>();
                for (int j = 0; j < count; j++) {
                    partitions.add(in.readVarInt());
                }
                assigned.put(topic, partitions);
            }
            if (in.hasRemaining()) {
                throw new CorruptDataException(in.remaining() + " bytes left after the last topic");
            }
            return new KafkaEnumeratorState(subscription, assigned);
        } catch (CorruptDataException | IllegalArgumentException e) {
            throw new CorruptDataException(what + " is corrupt: " + e.getMessage()
                    + "; restore from another checkpoint", e);
        }
    }

}

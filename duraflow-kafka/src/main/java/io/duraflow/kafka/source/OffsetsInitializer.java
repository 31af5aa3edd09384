package io.duraflow.kafka.source;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a {@link KafkaSource} starts reading a partition, or where it stops (see {@link
 * KafkaSourceBuilder#bounded}). The enumerator resolves it to concrete offsets for the partitions
 * it discovers, on its worker thread, so the readers only ever seek to an offset.
 */
public sealed interface OffsetsInitializer {
    /** The first record still in the partition. */
    static OffsetsInitializer earliest() {
        return Earliest.INSTANCE;
    }

    /**
     * The end of the partition when it is discovered: a starting point that reads only records
     * produced after, or a stopping point that reads what was there.
     */
    static OffsetsInitializer latest() {
        return Latest.INSTANCE;
    }

    /** The offsets the source's group committed; partitions without one use {@code fallback}. */
    static OffsetsInitializer committed(ResetStrategy fallback) {
        return new Committed(fallback);
    }

    /**
     * The first record with a timestamp at or after {@code timestampMs} (milliseconds since the
     * epoch), or the end of a partition that has none.
     */
    static OffsetsInitializer timestamp(long timestampMs) {
        return new Timestamp(timestampMs);
    }

    /** The given offsets; partitions not in the map start at their earliest offset. */
    static OffsetsInitializer offsets(Map<TopicPartition, Long> offsets) {
        return offsets(offsets, ResetStrategy.EARLIEST);
    }

    /** The given offsets; partitions not in the map use {@code fallback}. */
    static OffsetsInitializer offsets(Map<TopicPartition, Long> offsets, ResetStrategy fallback) {
        return new Explicit(offsets, fallback);
    }

    /** What to do for a partition without a committed or explicit offset. */
    enum ResetStrategy {
        EARLIEST,
        LATEST,
        /** Fail: the source cannot start without an offset for every partition. */
        NONE
    }

    /**
     * The offsets of {@code partitions}, one for each.
     *
     * @param groupId the source's consumer group, null if it has none
     * @throws IllegalStateException a partition has no offset and the fallback is {@link ResetStrategy#NONE}
     */
    Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata, String groupId)
            throws Exception;

    /** For the plan fingerprint and messages. */
    String description();

    /** Whether it reads the group's committed offsets (the source then needs a group id). */
    default boolean needsGroupId() {
        return false;
    }

    /** See {@link #earliest()}. */
    enum Earliest implements OffsetsInitializer {
        INSTANCE;

        @Override
        public Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata,
                String groupId) throws Exception {
            return partitions.isEmpty() ? Map.of() : metadata.earliestOffsets(partitions);
        }

        @Override
        public String description() {
            return "earliest";
        }
    }

    /** See {@link #latest()}. */
    enum Latest implements OffsetsInitializer {
        INSTANCE;

        @Override
        public Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata,
                String groupId) throws Exception {
            return partitions.isEmpty() ? Map.of() : metadata.latestOffsets(partitions);
        }

        @Override
        public String description() {
            return "latest";
        }
    }

    /** See {@link #committed}. */
    record Committed(ResetStrategy fallback) implements OffsetsInitializer {
        public Committed {
            if (fallback == null) {
                throw new IllegalArgumentException("committed offsets need a fallback: EARLIEST, LATEST or NONE");
            }
        }

        @Override
        public Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata,
                String groupId) throws Exception {
            if (partitions.isEmpty()) {
                return Map.of();
            }
            Map<TopicPartition, Long> committed = metadata.committedOffsets(groupId, partitions);
            return withFallback(partitions, committed, fallback, metadata,
                    "group '" + groupId + "' has no committed offset");
        }

        @Override
        public String description() {
            return "committed(" + fallback.name().toLowerCase() + ")";
        }

        @Override
        public boolean needsGroupId() {
            return true;
        }
    }

    /** See {@link #timestamp}. */
    record Timestamp(long timestampMs) implements OffsetsInitializer {
        public Timestamp {
            if (timestampMs < 0) {
                throw new IllegalArgumentException("a starting or stopping timestamp must be >= 0 ms, got "
                        + timestampMs);
            }
        }

        @Override
        public Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata,
                String groupId) throws Exception {
            if (partitions.isEmpty()) {
                return Map.of();
            }
            Map<TopicPartition, Long> found = metadata.offsetsForTimestamp(partitions, timestampMs);
            return withFallback(partitions, found, ResetStrategy.LATEST, metadata, "");
        }

        @Override
        public String description() {
            return "timestamp(" + timestampMs + ")";
        }
    }

    /** See {@link #offsets}. */
    record Explicit(Map<TopicPartition, Long> offsets, ResetStrategy fallback) implements OffsetsInitializer {
        public Explicit {
            if (fallback == null) {
                throw new IllegalArgumentException("explicit offsets need a fallback: EARLIEST, LATEST or NONE");
            }
            offsets = Map.copyOf(offsets);
            for (Map.Entry<TopicPartition, Long> entry : offsets.entrySet()) {
                if (entry.getValue() < 0) {
                    throw new IllegalArgumentException("the offset of " + entry.getKey() + " must be >= 0, got "
                            + entry.getValue());
                }
            }
        }

        @Override
        public Map<TopicPartition, Long> resolve(Collection<TopicPartition> partitions, KafkaMetadata metadata,
                String groupId) throws Exception {
            return withFallback(partitions, offsets, fallback, metadata, "offsets(...) has no offset");
        }

        /** Sorted by topic and partition, so that equal maps describe the same. */
        @Override
        public String description() {
            Map<String, Long> sorted = new TreeMap<>();
            offsets.forEach((partition, offset) -> sorted.put(partition.toString(), offset));
            return "offsets(" + sorted + "," + fallback.name().toLowerCase() + ")";
        }
    }

    /** {@code found}'s offsets for {@code partitions}, and {@code fallback}'s for those it lacks. */
    private static Map<TopicPartition, Long> withFallback(Collection<TopicPartition> partitions,
            Map<TopicPartition, Long> found, ResetStrategy fallback, KafkaMetadata metadata, String missingWhy)
            throws Exception {
        Map<TopicPartition, Long> result = new HashMap<>();
        List<TopicPartition> missing = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            Long offset = found.get(partition);
            if (offset == null) {
                missing.add(partition);
            } else {
                result.put(partition, offset);
            }
        }
        if (missing.isEmpty()) {
            return result;
        }
        switch (fallback) {
            case EARLIEST -> result.putAll(metadata.earliestOffsets(missing));
            case LATEST -> result.putAll(metadata.latestOffsets(missing));
            case NONE -> {
                missing.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
                throw new IllegalStateException(missingWhy + " for " + missing
                        + " and the fallback is NONE; commit offsets for them or choose EARLIEST or LATEST");
            }
        }
        return result;
    }
}

package io.duraflow.kafka.source;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition of a topic and where to read it: from {@code startingOffset} (the offset of the
 * next record to read) up to, not including, {@code stoppingOffset}, or without end when it is
 * {@link #NO_STOPPING_OFFSET}. In a reader's checkpoint the starting offset is the reader's exact
 * position, so a restored reader neither skips nor repeats a record.
 *
 * <p>Wire format ({@link #SERIALIZER}), integers as {@code DataWriter} varints:
 * <pre>
 *   varint version (1) | string topic | varint partition | varlong startingOffset
 *   | byte bounded (0 or 1) | [varlong stoppingOffset, if bounded]
 * </pre>
 */
public record KafkaPartitionSplit(String topic, int partition, long startingOffset, long stoppingOffset)
        implements SourceSplit {
    /** The stopping offset of a partition read for as long as the job runs. */
    public static final long NO_STOPPING_OFFSET = Long.MAX_VALUE;

    private static final int FORMAT_VERSION = 1;

    /** Writes Kafka partition splits for the wire, the job event log and the readers' checkpoints. */
    public static final SplitSerializer<KafkaPartitionSplit> SERIALIZER = new SplitSerializer<>() {
        @Override
        public void write(KafkaPartitionSplit split, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeString(split.topic);
            out.writeVarInt(split.partition);
            out.writeVarLong(split.startingOffset);
            out.writeBoolean(split.isBounded());
            if (split.isBounded()) {
                out.writeVarLong(split.stoppingOffset);
            }
        }

        @Override
        public KafkaPartitionSplit read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported Kafka partition split format version " + version
                        + ", this build reads version " + FORMAT_VERSION);
            }
            String topic = in.readString();
            int partition = in.readVarInt();
            long start = in.readVarLong();
            byte bounded = in.readByte();
            if (bounded != 0 && bounded != 1) {
                throw new CorruptDataException("Kafka partition split " + topic + "-" + partition
                        + " has a bad bounded flag " + bounded);
            }
            long stop = bounded == 1 ? in.readVarLong() : NO_STOPPING_OFFSET;
            try {
                return new KafkaPartitionSplit(topic, partition, start, stop);
            } catch (IllegalArgumentException e) {
                throw new CorruptDataException("corrupt Kafka partition split: " + e.getMessage(), e);
            }
        }
    };

    public KafkaPartitionSplit {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("a Kafka partition split needs a topic");
        }
        if (partition < 0 || startingOffset < 0 || stoppingOffset < 0) {
            throw new IllegalArgumentException("bad Kafka partition split " + topic + "-" + partition + " from "
                    + startingOffset + " to " + stoppingOffset);
        }
    }

    /** A split read from {@code startingOffset} without end. */
    public static KafkaPartitionSplit unbounded(TopicPartition partition, long startingOffset) {
        return new KafkaPartitionSplit(partition.topic(), partition.partition(), startingOffset, NO_STOPPING_OFFSET);
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    public boolean isBounded() {
        return stoppingOffset != NO_STOPPING_OFFSET;
    }

    /** The same partition, to be read from {@code offset} on. */
    public KafkaPartitionSplit withStartingOffset(long offset) {
        return new KafkaPartitionSplit(topic, partition, offset, stoppingOffset);
    }

    /** {@code topic-partition}, as Kafka prints a {@link TopicPartition}. */
    @Override
    public String splitId() {
        return topic + "-" + partition;
    }
}

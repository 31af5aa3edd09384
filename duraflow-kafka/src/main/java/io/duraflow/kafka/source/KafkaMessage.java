package io.duraflow.kafka.source;

import io.duraflow.api.functions.Collector;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A Kafka record whole, as {@link KafkaRecordDeserializer#records()} produces it. The key and
 * value are null when the record has none (a tombstone's value is null). Equality compares the
 * bytes' contents.
 *
 * <p>Format ({@link #SERIALIZER}): {@code string topic | varint partition | varlong offset |
 * long timestamp | nullable key | nullable value | varint h | h x (string key | nullable value)},
 * a nullable byte array being {@code varint length + 1 (0 = null) | bytes}.
 */
public record KafkaMessage(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value,
        List<Header> headers) {
    public KafkaMessage {
        headers = List.copyOf(headers);
    }

    /** A record header; its value may be null. */
    public record Header(String key, byte[] value) {
        public Header {
            Objects.requireNonNull(key, "a header needs a key");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Header that && key.equals(that.key) && Arrays.equals(value, that.value);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return key + "=" + (value == null ? "null" : value.length + " bytes");
        }
    }

    static KafkaMessage of(ConsumerRecord<byte[], byte[]> record) {
        List<Header> headers = new ArrayList<>();
        record.headers().forEach(header -> headers.add(new Header(header.key(), header.value())));
        return new KafkaMessage(record.topic(), record.partition(), record.offset(), record.timestamp(),
                record.key(), record.value(), headers);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KafkaMessage that && topic.equals(that.topic) && partition == that.partition
                && offset == that.offset && timestamp == that.timestamp && Arrays.equals(key, that.key)
                && Arrays.equals(value, that.value) && headers.equals(that.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, timestamp, Arrays.hashCode(key), Arrays.hashCode(value),
                headers);
    }

    @Override
    public String toString() {
        return "KafkaMessage[" + topic + "-" + partition + "@" + offset + ", timestamp=" + timestamp + ", key="
                + (key == null ? "null" : key.length + " bytes") + ", value="
                + (value == null ? "null" : value.length + " bytes") + ", headers=" + headers + "]";
    }

    /** Writes Kafka messages between tasks and into state. */
    public static final TypeSerializer<KafkaMessage> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void write(KafkaMessage message, DataWriter out) {
            out.writeString(message.topic);
            out.writeVarInt(message.partition);
            out.writeVarLong(message.offset);
            out.writeLong(message.timestamp);
            KafkaTypes.writeNullableBytes(message.key, out);
            KafkaTypes.writeNullableBytes(message.value, out);
            out.writeVarInt(message.headers.size());
            for (Header header : message.headers) {
                out.writeString(header.key);
                KafkaTypes.writeNullableBytes(header.value, out);
            }
        }

        @Override
        public KafkaMessage read(DataReader in) {
            String topic = in.readString();
            int partition = in.readVarInt();
            long offset = in.readVarLong();
            long timestamp = in.readLong();
            byte[] key = KafkaTypes.readNullableBytes(in);
            byte[] value = KafkaTypes.readNullableBytes(in);
            int count = in.readVarInt();
            List<Header> headers = new ArrayList<>(Math.min(count, in.remaining()));
            for (int i = 0; i < count; i++) {
                headers.add(new Header(in.readString(), KafkaTypes.readNullableBytes(in)));
            }
            return new KafkaMessage(topic, partition, offset, timestamp, key, value, headers);
        }

        @Override
        public String description() {
            return "kafkaMessage(v1)";
        }
    };

    static final KafkaRecordDeserializer<KafkaMessage> DESERIALIZER = new KafkaRecordDeserializer<>() {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaMessage> out) {
            out.collect(of(record));
        }

        @Override
        public TypeSerializer<KafkaMessage> producedType() {
            return SERIALIZER;
        }

        @Override
        public String description() {
            return "records";
        }
    };
}

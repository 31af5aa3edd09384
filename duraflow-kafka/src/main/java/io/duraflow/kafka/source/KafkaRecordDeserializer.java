package io.duraflow.kafka.source;

import io.duraflow.api.functions.Collector;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Turns a Kafka record into the source's records: none, one or several. One instance serves every
 * reader of the source in a process, so it must be thread-safe (the factories' are). A failure
 * fails the job at once (a {@code NonRetriableException}: a restarted job would meet the same
 * record again) with a message naming the topic, partition, offset and {@link #description()}; fix
 * the deserializer, or skip bad records in it.
 *
 * @param <T> the records the source produces
 */
public interface KafkaRecordDeserializer<T> {
    void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<T> out) throws Exception;

    /** How the produced records travel between tasks and into state. */
    TypeSerializer<T> producedType();

    /** Names the deserializer in error messages and the plan fingerprint, e.g. {@code json(com.acme.Order)}. */
    String description();

    /**
     * The value through a Kafka {@link Deserializer} (configured already); a null result (for a
     * tombstone, a null value) is skipped. The key and headers are ignored.
     */
    static <T> KafkaRecordDeserializer<T> valueOnly(Deserializer<T> deserializer, TypeSerializer<T> type) {
        return new ValueOnlyDeserializer<>(deserializer, type,
                "valueOnly(" + deserializer.getClass().getName() + "," + type.description() + ")");
    }

    /** The value as UTF-8 text; tombstones are skipped. */
    static KafkaRecordDeserializer<String> strings() {
        return new ValueOnlyDeserializer<>(new StringDeserializer(), Types.STRING, "strings");
    }

    /** The value's bytes as they are; tombstones are skipped. */
    static KafkaRecordDeserializer<byte[]> bytes() {
        return new ValueOnlyDeserializer<>(new ByteArrayDeserializer(), Types.BYTES, "bytes");
    }

    /**
     * The value as JSON, read into {@code type} by Jackson (unknown properties are an error);
     * tombstones are skipped. The records travel as {@code Types.record(type)} writes them when
     * that serializer supports the record's components, else as their JSON text.
     */
    static <T> KafkaRecordDeserializer<T> json(Class<T> type) {
        return JsonDeserializer.of(type);
    }

    /** Every record whole: topic, partition, offset, timestamp, key, value and headers. */
    static KafkaRecordDeserializer<KafkaMessage> records() {
        return KafkaMessage.DESERIALIZER;
    }
}

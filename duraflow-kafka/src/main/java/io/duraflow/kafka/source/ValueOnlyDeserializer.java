package io.duraflow.kafka.source;

import io.duraflow.api.functions.Collector;
import io.duraflow.api.types.TypeSerializer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/** {@link KafkaRecordDeserializer#valueOnly} and the factories built on it. */
record ValueOnlyDeserializer<T>(Deserializer<T> deserializer, TypeSerializer<T> producedType, String description)
        implements KafkaRecordDeserializer<T> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<T> out) {
        T value = deserializer.deserialize(record.topic(), record.headers(), record.value());
        if (value != null) {
            out.collect(value);
        }
    }
}

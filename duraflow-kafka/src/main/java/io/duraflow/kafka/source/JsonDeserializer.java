package io.duraflow.kafka.source;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** {@link KafkaRecordDeserializer#json}: Jackson reads the value into the class. */
record JsonDeserializer<T>(Class<T> type, ObjectMapper mapper, TypeSerializer<T> producedType)
        implements KafkaRecordDeserializer<T> {

    static <T> JsonDeserializer<T> of(Class<T> type) {
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        return new JsonDeserializer<>(type, mapper, typeOf(type, mapper));
    }

    /** {@code Types.record} for a record class it supports; else the JSON text. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <T> TypeSerializer<T> typeOf(Class<T> type, ObjectMapper mapper) {
        if (type.isRecord()) {
            try {
                return (TypeSerializer<T>) Types.record((Class<Record>) (Class) type);
            } catch (IllegalArgumentException e) {
                // A component Types.record does not support (a list, a map, ...): JSON supports it.
            }
        }
        return new JsonText<>(type, mapper);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<T> out) throws IOException {
        if (record.value() != null) {
            out.collect(mapper.readValue(record.value(), type));
        }
    }

    @Override
    public String description() {
        return "json(" + type.getName() + ")";
    }

    /** A value as its JSON text: {@code varint length | UTF-8 JSON}. */
    record JsonText<T>(Class<T> type, ObjectMapper mapper) implements TypeSerializer<T> {
        @Override
        public void write(T value, DataWriter out) {
            try {
                byte[] json = mapper.writeValueAsBytes(value);
                out.writeVarInt(json.length);
                out.writeBytes(json);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write a " + type.getName() + " as JSON: " + e.getMessage(), e);
            }
        }

        @Override
        public T read(DataReader in) {
            byte[] json = in.readBytes(in.readVarInt());
            try {
                return mapper.readValue(json, type);
            } catch (IOException e) {
                throw new CorruptDataException("cannot read a " + type.getName() + " from JSON: " + e.getMessage(), e);
            }
        }

        @Override
        public String description() {
            return "jsonText(" + type.getName() + ")";
        }
    }
}

package io.duraflow.kafka.source;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/** Type serializers the Kafka source needs that {@code io.duraflow.api.types.Types} lacks. */
final class KafkaTypes {
    private KafkaTypes() {}

    /** A byte array: {@code varint length | bytes}. */
    static final TypeSerializer<byte[]> BYTES = new TypeSerializer<>() {
        @Override
        public void write(byte[] value, DataWriter out) {
            out.writeVarInt(value.length);
            out.writeBytes(value);
        }

        @Override
        public byte[] read(DataReader in) {
            return in.readBytes(in.readVarInt());
        }

        @Override
        public String description() {
            return "bytes";
        }
    };

    /** A byte array or null: {@code varint length + 1 (0 = null) | bytes}. */
    static void writeNullableBytes(byte[] value, DataWriter out) {
        if (value == null) {
            out.writeVarInt(0);
        } else {
            out.writeVarInt(value.length + 1);
            out.writeBytes(value);
        }
    }

    static byte[] readNullableBytes(DataReader in) {
        int length = in.readVarInt();
        return length == 0 ? null : in.readBytes(length - 1);
    }
}

package io.duraflow.kafka.source;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/** The nullable byte arrays of {@link KafkaMessage}'s format. */
final class KafkaTypes {
    private KafkaTypes() {}

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

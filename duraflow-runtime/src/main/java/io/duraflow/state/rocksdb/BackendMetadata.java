package io.duraflow.state.rocksdb;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.format.StateKind;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * What a native RocksDB snapshot says about its database beside its files (key serializer, key
 * groups, states and their column families), written as the metadata stream of an {@link
 * io.duraflow.state.IncrementalKeyedStateHandle}. Layout: see
 * docs/design/checkpoint-files.md#backendmetadata.
 */
record BackendMetadata(String keySerializerDescription, int maxParallelism, KeyGroupRange keyGroupRange,
        List<State> states) {
    static final int MAGIC = 0x44465242;
    static final int VERSION = 1;
    static final int HEADER_BYTES = 16;
    static final int ENTRIES = 1;
    static final int RAW = 2;

    /** A state and the column families it has ({@link #ENTRIES}, {@link #RAW} or both). */
    record State(StateMeta meta, int columns) {
        State {
            Objects.requireNonNull(meta, "meta");
        }

        boolean hasEntries() {
            return (columns & ENTRIES) != 0;
        }

        boolean hasRaw() {
            return (columns & RAW) != 0;
        }
    }

    BackendMetadata {
        states = List.copyOf(states);
    }

    byte[] toBytes() {
        DataWriter payload = new DataWriter(256);
        payload.writeString(keySerializerDescription);
        payload.writeVarInt(maxParallelism);
        payload.writeVarInt(keyGroupRange.start());
        payload.writeVarInt(keyGroupRange.end());
        payload.writeVarInt(states.size());
        for (State state : states) {
            payload.writeString(state.meta().name());
            payload.writeByte(state.meta().kind().code());
            payload.writeString(state.meta().description());
            payload.writeByte(state.columns());
        }
        CRC32C crc = new CRC32C();
        crc.update(payload.buffer(), 0, payload.position());
        return ByteBuffer.allocate(HEADER_BYTES + payload.position()).putInt(MAGIC).putInt(VERSION)
                .putInt(payload.position()).putInt((int) crc.getValue()).put(payload.buffer(), 0, payload.position())
                .array();
    }

    static BackendMetadata read(StreamStateHandle handle) throws IOException {
        String source = StreamStateHandles.describe(handle);
        byte[] bytes = StreamStateHandles.readAll(handle);
        if (bytes.length < HEADER_BYTES) {
            throw new CorruptStateException(source + ": torn RocksDB snapshot metadata (" + bytes.length
                    + " bytes, shorter than its " + HEADER_BYTES + "-byte header); restore from another checkpoint");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int magic = buffer.getInt();
        if (magic != MAGIC) {
            throw new CorruptStateException(source + " is not RocksDB snapshot metadata (magic "
                    + Integer.toHexString(magic) + " at offset 0)");
        }
        int version = buffer.getInt();
        if (version != VERSION) {
            throw new CorruptStateException(source + " has RocksDB snapshot metadata version " + version
                    + "; this Duraflow reads version " + VERSION);
        }
        int length = buffer.getInt();
        if (length < 0 || bytes.length != HEADER_BYTES + length) {
            throw new CorruptStateException(source + ": RocksDB snapshot metadata of " + bytes.length
                    + " bytes where its header says " + (HEADER_BYTES + (long) length) + "; the file is torn or"
                    + " corrupt, restore from another checkpoint");
        }
        int storedCrc = buffer.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, HEADER_BYTES, length);
        if ((int) crc.getValue() != storedCrc) {
            throw new CorruptStateException(source + ": RocksDB snapshot metadata fails its checksum; the file is"
                    + " corrupt, restore from another checkpoint");
        }
        try {
            DataReader in = new DataReader(bytes, HEADER_BYTES, length);
            String keySerializer = in.readString();
            int maxParallelism = in.readVarInt();
            int start = in.readVarInt();
            int end = in.readVarInt();
            int count = in.readVarInt();
            List<State> states = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String name = in.readString();
                int code = in.readByte();
                StateKind kind = StateKind.ofCode(code);
                if (kind == null) {
                    throw new CorruptStateException(source + ": state '" + name + "' has unknown kind " + code);
                }
                states.add(new State(new StateMeta(name, kind, in.readString()), in.readByte()));
            }
            return new BackendMetadata(keySerializer, maxParallelism, new KeyGroupRange(start, end), states);
        } catch (CorruptDataException | IllegalArgumentException e) {
            throw new CorruptStateException(source + ": malformed RocksDB snapshot metadata: " + e.getMessage(), e);
        }
    }
}

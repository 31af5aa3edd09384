package io.duraflow.state.rocksdb;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.format.StateKind;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Converts between the database's entries ({@link KeyLayout}) and the blocks of the canonical
 * {@link io.duraflow.state.format.KeyedSnapshotFormat}, one key group at a time.
 *
 * <p>Database to block needs only the key serializer (to find where a key ends in a map entry's
 * database key): values, elements and map entries are copied as bytes, so a savepoint is written
 * without deserializing state. Block to database (a state restored from a canonical snapshot, when it
 * is declared) needs the state's serializers, because a block does not delimit its values.
 */
final class CanonicalBlocks {
    /** Reads (and so skips) one serialized value of a state. */
    @FunctionalInterface
    interface Skip {
        void over(DataReader in);

        static Skip of(TypeSerializer<?> serializer) {
            return serializer::read;
        }
    }

    private final TypeSerializer<?> keySerializer;
    private final DataWriter body = new DataWriter(64 * 1024);
    private final DataWriter group = new DataWriter(4 * 1024);
    private final DataReader reader = new DataReader();
    private byte[] lastKey = new byte[64];
    private int lastKeyLength = -1;

    CanonicalBlocks(TypeSerializer<?> keySerializer) {
        this.keySerializer = keySerializer;
    }

    /**
     * Writes into {@code block} the canonical block of state entries of {@code keyGroup} that
     * {@code iterator} is positioned at (or before), leaving it at the first entry of a later key
     * group; false (nothing written) when the key group has no entry.
     */
    boolean entriesBlock(StateKind kind, RocksIterator iterator, int keyGroup, DataWriter block) {
        body.reset();
        int count = 0;
        lastKeyLength = -1;
        int groupSize = 0;
        group.reset();
        for (; iterator.isValid(); iterator.next()) {
            byte[] dbKey = iterator.key();
            int found = KeyLayout.readKeyGroup(dbKey);
            if (found > keyGroup) {
                break;
            }
            if (found < keyGroup) {
                continue;
            }
            byte[] value = iterator.value();
            switch (kind) {
                case VALUE -> {
                    body.writeBytes(dbKey, KeyLayout.KEY_GROUP_BYTES, dbKey.length - KeyLayout.KEY_GROUP_BYTES);
                    body.writeBytes(value);
                    count++;
                }
                case LIST -> {
                    body.writeBytes(dbKey, KeyLayout.KEY_GROUP_BYTES, dbKey.length - KeyLayout.KEY_GROUP_BYTES);
                    writeElements(value, body);
                    count++;
                }
                case MAP -> {
                    int keyEnd = keyEnd(dbKey);
                    if (lastKeyLength < 0 || !sameKey(dbKey, keyEnd)) {
                        if (lastKeyLength >= 0) {
                            flushGroup(groupSize);
                        }
                        rememberKey(dbKey, keyEnd);
                        groupSize = 0;
                        group.reset();
                        count++;
                    }
                    group.writeBytes(dbKey, keyEnd, dbKey.length - keyEnd);
                    group.writeBytes(value);
                    groupSize++;
                }
            }
        }
        if (kind == StateKind.MAP && lastKeyLength >= 0) {
            flushGroup(groupSize);
        }
        if (count == 0) {
            return false;
        }
        block.reset();
        block.writeVarInt(count);
        block.writeBytes(body.buffer(), 0, body.position());
        return true;
    }

    /** The timers block of {@code keyGroup} from an iterator over a timers column; false when there are none. */
    boolean timersBlock(RocksIterator iterator, int keyGroup, DataWriter block) {
        body.reset();
        int count = 0;
        for (; iterator.isValid(); iterator.next()) {
            byte[] dbKey = iterator.key();
            int found = KeyLayout.readKeyGroup(dbKey);
            if (found > keyGroup) {
                break;
            }
            if (found < keyGroup) {
                continue;
            }
            int keyOffset = KeyLayout.KEY_GROUP_BYTES + 8;
            body.writeBytes(dbKey, keyOffset, dbKey.length - keyOffset);
            body.writeLong(KeyLayout.readTime(dbKey, KeyLayout.KEY_GROUP_BYTES));
            count++;
        }
        if (count == 0) {
            return false;
        }
        block.reset();
        block.writeVarInt(count);
        block.writeBytes(body.buffer(), 0, body.position());
        return true;
    }

    /** n x {var-int length, element} -> var-int n, n x element. */
    private void writeElements(byte[] value, DataWriter out) {
        reader.reset(value, 0, value.length);
        int elements = 0;
        while (reader.hasRemaining()) {
            reader.skip(reader.readVarInt());
            elements++;
        }
        out.writeVarInt(elements);
        reader.reset(value, 0, value.length);
        while (reader.hasRemaining()) {
            int length = reader.readVarInt();
            out.writeBytes(value, reader.position(), length);
            reader.skip(length);
        }
    }

    private int keyEnd(byte[] dbKey) {
        reader.reset(dbKey, KeyLayout.KEY_GROUP_BYTES, dbKey.length - KeyLayout.KEY_GROUP_BYTES);
        keySerializer.read(reader);
        return reader.position();
    }

    private boolean sameKey(byte[] dbKey, int keyEnd) {
        return keyEnd == lastKeyLength && Arrays.equals(dbKey, 0, keyEnd, lastKey, 0, keyEnd);
    }

    private void rememberKey(byte[] dbKey, int keyEnd) {
        if (lastKey.length < keyEnd) {
            lastKey = new byte[keyEnd * 2];
        }
        System.arraycopy(dbKey, 0, lastKey, 0, keyEnd);
        lastKeyLength = keyEnd;
    }

    private void flushGroup(int groupSize) {
        body.writeBytes(lastKey, KeyLayout.KEY_GROUP_BYTES, lastKeyLength - KeyLayout.KEY_GROUP_BYTES);
        body.writeVarInt(groupSize);
        body.writeBytes(group.buffer(), 0, group.position());
    }

    // ---- block to database ----------------------------------------------------------------

    /**
     * Adds the entries of a canonical block of {@code keyGroup} to {@code batch}.
     *
     * @param values skips a value (value state), an element (list state) or a map value
     * @param mapKeys skips a map key (map state only)
     * @throws CorruptDataException when the block cannot be read with these serializers
     */
    void insertBlock(StateKind kind, int keyGroup, byte[] blockBytes, Skip values, Skip mapKeys,
            ColumnFamilyHandle column, WriteBatch batch) throws RocksDBException {
        DataReader in = new DataReader(blockBytes);
        int count = in.readVarInt();
        DataWriter key = new DataWriter(64);
        DataWriter value = new DataWriter(256);
        for (int i = 0; i < count; i++) {
            key.reset();
            key.writeByte(keyGroup >>> 8);
            key.writeByte(keyGroup);
            int keyStart = in.position();
            keySerializer.read(in);
            key.writeBytes(blockBytes, keyStart, in.position() - keyStart);
            switch (kind) {
                case VALUE -> {
                    int start = in.position();
                    values.over(in);
                    batch.put(column, Arrays.copyOf(key.buffer(), key.position()),
                            Arrays.copyOfRange(blockBytes, start, in.position()));
                }
                case LIST -> {
                    int size = in.readVarInt();
                    value.reset();
                    for (int e = 0; e < size; e++) {
                        int start = in.position();
                        values.over(in);
                        value.writeVarInt(in.position() - start);
                        value.writeBytes(blockBytes, start, in.position() - start);
                    }
                    batch.put(column, Arrays.copyOf(key.buffer(), key.position()), value.toByteArray());
                }
                case MAP -> {
                    int size = in.readVarInt();
                    int keyLength = key.position();
                    for (int e = 0; e < size; e++) {
                        int mapKeyStart = in.position();
                        mapKeys.over(in);
                        int valueStart = in.position();
                        values.over(in);
                        byte[] entryKey = new byte[keyLength + valueStart - mapKeyStart];
                        System.arraycopy(key.buffer(), 0, entryKey, 0, keyLength);
                        System.arraycopy(blockBytes, mapKeyStart, entryKey, keyLength, valueStart - mapKeyStart);
                        batch.put(column, entryKey, Arrays.copyOfRange(blockBytes, valueStart, in.position()));
                    }
                }
            }
        }
        if (in.hasRemaining()) {
            throw new CorruptDataException(in.remaining() + " bytes left after " + count + " entries");
        }
    }

    /** Adds the timers of a canonical timers block of {@code keyGroup} to {@code batch}; returns how many. */
    int insertTimers(int keyGroup, byte[] blockBytes, ColumnFamilyHandle column, WriteBatch batch)
            throws RocksDBException {
        DataReader in = new DataReader(blockBytes);
        int count = in.readVarInt();
        for (int i = 0; i < count; i++) {
            int keyStart = in.position();
            keySerializer.read(in);
            int keyLength = in.position() - keyStart;
            long time = in.readLong();
            byte[] dbKey = new byte[KeyLayout.KEY_GROUP_BYTES + 8 + keyLength];
            KeyLayout.writeKeyGroup(dbKey, keyGroup);
            KeyLayout.writeTime(dbKey, KeyLayout.KEY_GROUP_BYTES, time);
            System.arraycopy(blockBytes, keyStart, dbKey, KeyLayout.KEY_GROUP_BYTES + 8, keyLength);
            batch.put(column, dbKey, new byte[0]);
        }
        if (in.hasRemaining()) {
            throw new CorruptDataException(in.remaining() + " bytes left after " + count + " timers");
        }
        return count;
    }
}

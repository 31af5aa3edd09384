package io.duraflow.state.rocksdb;

import java.util.Arrays;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A RocksDB write batch built in Java and handed to RocksDB in one call ({@code new
 * WriteBatch(byte[])}), instead of one JNI call per entry as {@link WriteBatch#put} costs: the
 * write-back of a cache full of dirty values is tens of thousands of entries per snapshot. The
 * bytes are RocksDB's own batch representation (its write-ahead log record, which RocksDB keeps
 * stable across versions), checked byte for byte against a native batch in {@code
 * WriteBatchBuilderTest}:
 *
 * <pre>
 * batch     := sequence (8 bytes, little-endian; 0, RocksDB assigns it) | count (4 bytes, little-endian) | record*
 * record    := 0x05 | column family id (varint32) | key (varstring) | value (varstring)   put
 *            | 0x04 | column family id (varint32) | key (varstring)                       delete
 *              (in the default column family, id 0: 0x01 | key | value and 0x00 | key)
 * varstring := length (varint32) | bytes
 * varint32  := 7 bits per byte, least significant group first, 0x80 set on every byte but the last
 * </pre>
 *
 * Not thread-safe.
 */
final class WriteBatchBuilder {
    private static final int HEADER_BYTES = 12;
    private static final byte PUT = 0x1;
    private static final byte DELETE = 0x0;
    private static final byte COLUMN_FAMILY_PUT = 0x5;
    private static final byte COLUMN_FAMILY_DELETE = 0x4;

    private byte[] bytes = new byte[64 * 1024];
    private int length = HEADER_BYTES;
    private int count;

    void put(int columnFamilyId, byte[] key, byte[] value) {
        ensure(1 + 5 + 5 + key.length + 5 + value.length);
        recordType(columnFamilyId, PUT, COLUMN_FAMILY_PUT);
        varString(key);
        varString(value);
        count++;
    }

    void delete(int columnFamilyId, byte[] key) {
        ensure(1 + 5 + 5 + key.length);
        recordType(columnFamilyId, DELETE, COLUMN_FAMILY_DELETE);
        varString(key);
        count++;
    }

    /** Entries added since the last write. */
    int count() {
        return count;
    }

    /** Bytes of the batch so far. */
    int sizeBytes() {
        return length;
    }

    /** The batch's bytes as RocksDB reads them (tests). */
    byte[] toBytes() {
        byte[] batch = Arrays.copyOf(bytes, length);
        for (int i = 0; i < 4; i++) {
            batch[8 + i] = (byte) (count >>> (8 * i));
        }
        return batch;
    }

    /** Writes the batch into {@code db} (nothing if it is empty) and starts a new one. */
    void writeTo(RocksDB db, WriteOptions options) throws RocksDBException {
        if (count == 0) {
            return;
        }
        try (WriteBatch batch = new WriteBatch(toBytes())) {
            db.write(options, batch);
        }
        clear();
    }

    void clear() {
        length = HEADER_BYTES;
        count = 0;
    }

    private void recordType(int columnFamilyId, byte inDefault, byte inColumnFamily) {
        if (columnFamilyId == 0) {
            bytes[length++] = inDefault;
        } else {
            bytes[length++] = inColumnFamily;
            varInt(columnFamilyId);
        }
    }

    private void varString(byte[] data) {
        varInt(data.length);
        System.arraycopy(data, 0, bytes, length, data.length);
        length += data.length;
    }

    private void varInt(int value) {
        while ((value & ~0x7F) != 0) {
            bytes[length++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        bytes[length++] = (byte) value;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + more, 2 * bytes.length));
        }
    }
}

package io.duraflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** The Java-built write batch is byte for byte what RocksDB's own batch holds, and RocksDB applies it. */
class WriteBatchBuilderTest {
    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path tempDir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theBytesAreRocksDBsBatchAndItAppliesThem() throws Exception {
        List<ColumnFamilyDescriptor> descriptors = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(bytes("s:a")), new ColumnFamilyDescriptor(bytes("s:b")));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        byte[] longKey = new byte[200];
        Arrays.fill(longKey, (byte) 0xAB);
        byte[] longValue = new byte[20_000];
        Arrays.fill(longValue, (byte) 0x7F);
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB db = RocksDB.open(options, tempDir.toString(), descriptors, handles);
                WriteOptions write = new WriteOptions().setDisableWAL(true);
                WriteBatch expected = new WriteBatch()) {
            ColumnFamilyHandle a = handles.get(1);
            ColumnFamilyHandle b = handles.get(2);
            db.put(b, bytes("gone"), bytes("soon"));
            WriteBatchBuilder builder = new WriteBatchBuilder();

            expected.put(a, bytes("k1"), bytes("v1"));
            builder.put(a.getID(), bytes("k1"), bytes("v1"));
            expected.put(b, longKey, longValue);
            builder.put(b.getID(), longKey, longValue);
            expected.delete(b, bytes("gone"));
            builder.delete(b.getID(), bytes("gone"));
            expected.put(bytes("default"), new byte[0]);
            builder.put(0, bytes("default"), new byte[0]);
            expected.delete(bytes("nothing"));
            builder.delete(0, bytes("nothing"));

            assertThat(builder.count()).isEqualTo(5);
            assertThat(builder.toBytes()).isEqualTo(expected.data());

            builder.writeTo(db, write);
            assertThat(builder.count()).isZero();
            assertThat(db.get(a, bytes("k1"))).isEqualTo(bytes("v1"));
            assertThat(db.get(b, longKey)).isEqualTo(longValue);
            assertThat(db.get(b, bytes("gone"))).isNull();
            assertThat(db.get(bytes("default"))).isEmpty();
            builder.writeTo(db, write);

            handles.forEach(ColumnFamilyHandle::close);
        }
    }
}

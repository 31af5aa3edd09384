package io.duraflow.api.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TypesTest {
    enum Color { RED, GREEN }

    public record Inner(String name, Color color) {}

    public record Row(long id, int count, double price, boolean flag, String text, Long boxed, Inner inner) {}

    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) {
        DataWriter out = new DataWriter(1);
        serializer.write(value, out);
        DataReader in = new DataReader(out.toByteArray());
        T read = serializer.read(in);
        assertThat(in.hasRemaining()).as("all bytes consumed").isFalse();
        return read;
    }

    @Test
    void primitivesRoundTrip() {
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            long l = random.nextLong() >> random.nextInt(64);
            assertThat(roundTrip(Types.LONG, l)).isEqualTo(l);
            int n = random.nextInt() >> random.nextInt(32);
            assertThat(roundTrip(Types.INT, n)).isEqualTo(n);
            double d = random.nextGaussian() * 1e6;
            assertThat(roundTrip(Types.DOUBLE, d)).isEqualTo(d);
        }
        assertThat(roundTrip(Types.LONG, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
        assertThat(roundTrip(Types.BOOLEAN, true)).isTrue();
    }

    @Test
    void stringsRoundTripIncludingNonAsciiAndLong() {
        for (String s : List.of("", "w123", "héllo wörld", "日本語", "x".repeat(127), "y".repeat(128),
                "z".repeat(100_000), "\uD83D\uDE00 emoji")) {
            assertThat(roundTrip(Types.STRING, s)).isEqualTo(s);
        }
    }

    @Test
    void byteArraysRoundTripWithTheirLength() {
        for (int length : new int[] {0, 1, 127, 128, 70_000}) {
            byte[] bytes = new byte[length];
            new Random(length).nextBytes(bytes);
            assertThat(roundTrip(Types.BYTES, bytes)).isEqualTo(bytes);
        }
        assertThat(Types.BYTES.description()).isEqualTo("bytes");
    }

    @Test
    void tuplesListsAndNullables() {
        var pair = Types.tuple(Types.STRING, Types.LONG);
        assertThat(roundTrip(pair, Tuple2.of("a", 5L))).isEqualTo(Tuple2.of("a", 5L));
        var triple = Types.tuple(Types.INT, Types.STRING, Types.DOUBLE);
        assertThat(roundTrip(triple, Tuple3.of(1, "b", 2.5))).isEqualTo(Tuple3.of(1, "b", 2.5));
        assertThat(roundTrip(Types.list(Types.STRING), List.of("a", "b"))).containsExactly("a", "b");
        assertThat(roundTrip(Types.list(Types.nullable(Types.STRING)), java.util.Arrays.asList("a", null)))
                .containsExactly("a", null);
        assertThat(roundTrip(Types.nullable(Types.STRING), null)).isNull();
        assertThat(pair.description()).isEqualTo("tuple2(string,long)");
    }

    @Test
    void recordsRoundTripWithNullsAndNesting() {
        var serializer = Types.record(Row.class);
        Row row = new Row(1, 2, 3.5, true, "text", null, new Inner("n", Color.GREEN));
        assertThat(roundTrip(serializer, row)).isEqualTo(row);
        Row nulls = new Row(-1, 0, 0, false, null, 7L, null);
        assertThat(roundTrip(serializer, nulls)).isEqualTo(nulls);
        assertThat(serializer.description()).contains(Row.class.getName()).contains("text:java.lang.String");
    }

    /** Checkpoints hold records in this format: it must not change with how components are read. */
    @Test
    void aRecordIsWrittenAsItsComponentsOneAfterAnotherWithTheirOwnSerializers() {
        Row row = new Row(1_700_000_000_000L, -3, 2.25, true, "x", 9L, new Inner("n", Color.GREEN));
        DataWriter expected = new DataWriter();
        Types.LONG.write(row.id(), expected);
        Types.INT.write(row.count(), expected);
        Types.DOUBLE.write(row.price(), expected);
        Types.BOOLEAN.write(row.flag(), expected);
        Types.nullable(Types.STRING).write(row.text(), expected);
        Types.nullable(Types.LONG).write(row.boxed(), expected);
        Types.nullable(Types.record(Inner.class)).write(row.inner(), expected);

        DataWriter actual = new DataWriter();
        Types.record(Row.class).write(row, actual);

        assertThat(actual.toByteArray()).isEqualTo(expected.toByteArray());
    }

    private record Hidden(long id, String name) {}

    @Test
    void aPrivateRecordRoundTrips() {
        assertThat(roundTrip(Types.record(Hidden.class), new Hidden(5, "five"))).isEqualTo(new Hidden(5, "five"));
    }

    /**
     * A job's record, as the JobManager and the TaskManagers see it: defined by a class loader of
     * its own (the job's), over the API loaded by the parent. Once the job's loader is let go, the
     * serializer built for the record must not keep it alive: the API outlives every job.
     */
    @Test
    void aRecordsSerializerIsCachedYetLetsTheRecordsClassLoaderBeCollected() throws Exception {
        WeakReference<ClassLoader> loader = serializeARecordOfAnotherLoader();

        await("the record's class loader collected").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    System.gc();
                    return loader.get() == null;
                });
    }

    /**
     * Round trip of a record of another loader, compared by its bytes, not with the record's
     * equals: JDK 17 links a record's equals through a method handle of {@code ObjectMethods}
     * whose one-entry {@code asType} cache keeps the last record class it was linked for, and with
     * it that class's loader (one at most, replaced by the next record's).
     */
    private static WeakReference<ClassLoader> serializeARecordOfAnotherLoader() throws Exception {
        ClassLoader loader = new OwnClassLoader(RecordOfAJob.class.getName(), TypesTest.class.getClassLoader());
        Class<? extends Record> type = loader.loadClass(RecordOfAJob.class.getName()).asSubclass(Record.class);
        assertThat(type).isNotEqualTo(RecordOfAJob.class);
        Record value = type.getDeclaredConstructor(long.class, String.class).newInstance(7L, "seven");
        @SuppressWarnings("unchecked")
        TypeSerializer<Record> serializer = (TypeSerializer<Record>) Types.record(type);

        DataWriter out = new DataWriter();
        serializer.write(value, out);
        Record read = serializer.read(new DataReader(out.toByteArray()));
        DataWriter again = new DataWriter();
        serializer.write(read, again);
        assertThat(read.getClass()).isSameAs(type);
        assertThat(again.toByteArray()).isEqualTo(out.toByteArray());
        assertThat(Types.record(type)).as("the same serializer for the same class").isSameAs(serializer);
        return new WeakReference<>(loader);
    }

    /** Defines one class itself, from the bytes its parent has for it, and leaves every other to the parent. */
    private static final class OwnClassLoader extends ClassLoader {
        private final String own;

        OwnClassLoader(String own, ClassLoader parent) {
            super("own-" + own, parent);
            this.own = own;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(own)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                if (type == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        type = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return type;
            }
        }
    }

    public record Unsupported(java.util.Date when) {}

    @Test
    void recordWithUnsupportedComponentIsRejectedClearly() {
        assertThatThrownBy(() -> Types.record(Unsupported.class))
                .hasMessageContaining("java.util.Date").hasMessageContaining("TypeSerializer");
    }

    @Test
    void truncatedDataIsReportedNotMisread() {
        DataWriter out = new DataWriter();
        Types.STRING.write("hello", out);
        byte[] bytes = out.toByteArray();
        DataReader in = new DataReader(bytes, 0, bytes.length - 1);
        assertThatThrownBy(() -> Types.STRING.read(in)).isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("ends early");
    }

    @Test
    void varIntsAndVarLongsOfEveryLengthRoundTripAndTruncatedOrOverlongOnesAreRejected() {
        DataWriter out = new DataWriter(4);
        List<Long> longs = new java.util.ArrayList<>();
        for (int bit = 0; bit < 64; bit++) {
            longs.addAll(List.of(1L << bit, (1L << bit) - 1, -(1L << bit)));
        }
        for (long value : longs) {
            out.writeVarLong(value);
            out.writeSignedVarLong(value);
            out.writeVarInt((int) value);
        }
        DataReader in = new DataReader(out.toByteArray());
        for (long value : longs) {
            assertThat(in.readVarLong()).isEqualTo(value);
            assertThat(in.readSignedVarLong()).isEqualTo(value);
            assertThat(in.readVarInt()).isEqualTo((int) value);
        }
        assertThat(in.hasRemaining()).isFalse();

        DataWriter big = new DataWriter();
        big.writeVarLong(Long.MIN_VALUE); // 10 bytes
        byte[] bytes = big.toByteArray();
        assertThatThrownBy(() -> new DataReader(bytes, 0, bytes.length - 1).readVarLong())
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("ends early");
        assertThatThrownBy(() -> new DataReader(bytes, 0, 2).readVarInt())
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("ends early");
        byte[] overlong = new byte[11];
        java.util.Arrays.fill(overlong, (byte) 0x80);
        assertThatThrownBy(() -> new DataReader(overlong).readVarLong())
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("malformed var-long");
        assertThatThrownBy(() -> new DataReader(overlong).readVarInt())
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("malformed var-int");
    }

    @Test
    void aTupleOfTwoLongsWritesEachAsASignedVarLongAndKeepsItsDescription() {
        TypeSerializer<Tuple2<Long, Long>> pair = Types.tuple(Types.LONG, Types.LONG);
        assertThat(pair.description()).isEqualTo("tuple2(long,long)");
        for (long[] values : new long[][] {{0, 0}, {-1, 1}, {Long.MIN_VALUE, Long.MAX_VALUE}, {99_999, 49_999_999}}) {
            DataWriter out = new DataWriter();
            pair.write(Tuple2.of(values[0], values[1]), out);
            DataWriter expected = new DataWriter();
            Types.LONG.write(values[0], expected);
            Types.LONG.write(values[1], expected);
            assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
            assertThat(pair.read(new DataReader(out.toByteArray()))).isEqualTo(Tuple2.of(values[0], values[1]));
        }
    }
}

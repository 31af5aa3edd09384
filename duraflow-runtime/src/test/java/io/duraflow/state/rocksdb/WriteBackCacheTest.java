package io.duraflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The write-back cache alone, over a map that stands for the database. */
class WriteBackCacheTest {
    private static final long MIN_BYTES = 64 * 1024;
    private static final String[] KEYS = new String[600];
    private static final byte[][] KEY_BYTES = new byte[600][];

    static {
        for (int i = 0; i < KEYS.length; i++) {
            KEYS[i] = "k" + i;
            KEY_BYTES[i] = bytes(KEYS[i]);
        }
    }

    /** The database: column -> key -> value, with a log of what each commit wrote. */
    private static final class FakeDatabase implements WriteBackCache.WriteBack {
        final List<Map<String, byte[]>> columns = new ArrayList<>();
        final List<String> pending = new ArrayList<>();
        final List<List<String>> commits = new ArrayList<>();

        FakeDatabase(int columnCount) {
            for (int i = 0; i < columnCount; i++) {
                columns.add(new HashMap<>());
            }
        }

        @Override
        public void write(int column, byte[] key, byte[] value) {
            String k = new String(key, StandardCharsets.ISO_8859_1);
            if (value == null) {
                columns.get(column).remove(k);
            } else {
                columns.get(column).put(k, value.clone());
            }
            pending.add(column + ":" + k);
        }

        @Override
        public void commit() {
            commits.add(List.copyOf(pending));
            pending.clear();
        }

        byte[] get(int column, String key) {
            return columns.get(column).get(key);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] value(int length, int seed) {
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) seed);
        return value;
    }

    @Test
    void aWriteIsReadBackFromTheCacheAndReachesTheDatabaseOnlyWhenFlushed() {
        FakeDatabase db = new FakeDatabase(2);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        int a = cache.addColumn();
        int b = cache.addColumn();
        byte[] key = bytes("k1");

        assertThat(cache.get(a, key, key.length)).isNull();
        cache.put(a, key, key.length, bytes("one"), 3);
        cache.put(b, key, key.length, bytes("other column"), 12);
        cache.put(a, key, key.length, bytes("two!"), 3);

        assertThat(cache.get(a, key, key.length)).containsExactly(bytes("two"));
        assertThat(cache.get(b, key, key.length)).containsExactly(bytes("other column"));
        assertThat(db.get(a, "k1")).isNull();
        assertThat(cache.dirtyCount()).isEqualTo(2);

        cache.flush(a);
        assertThat(db.get(a, "k1")).containsExactly(bytes("two"));
        assertThat(db.get(b, "k1")).isNull();
        assertThat(db.commits).containsExactly(List.of("0:k1"));

        cache.flush();
        assertThat(db.get(b, "k1")).containsExactly(bytes("other column"));
        assertThat(cache.dirtyCount()).isZero();
        cache.flush();
        assertThat(db.commits).hasSize(2);
        assertThat(cache.get(a, key, key.length)).as("flushed entries stay cached, clean").isNotNull();
    }

    @Test
    void aDeleteIsCachedAsAbsentAndWrittenBackAsADelete() {
        FakeDatabase db = new FakeDatabase(1);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        int column = cache.addColumn();
        byte[] key = bytes("gone");
        db.columns.get(0).put("gone", bytes("old"));
        cache.putClean(column, key, key.length, bytes("old"), 3);

        cache.put(column, key, key.length, null, 0);

        assertThat(cache.get(column, key, key.length)).isSameAs(WriteBackCache.ABSENT);
        assertThat(db.get(column, "gone")).isNotNull();
        cache.flush();
        assertThat(db.get(column, "gone")).isNull();
    }

    @Test
    void whenFullTheLeastRecentlyUsedEntriesGoAndDirtyOnesAreWrittenBackFirst() {
        FakeDatabase db = new FakeDatabase(1);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        int column = cache.addColumn();
        byte[] hot = bytes("hot");
        cache.put(column, hot, hot.length, value(100, 1), 100);
        int written = 0;
        for (int i = 0; i < 2000; i++) {
            byte[] key = bytes("key-" + i);
            if (i % 2 == 0) {
                cache.put(column, key, key.length, value(200, i), 200);
                written++;
            } else {
                cache.putClean(column, key, key.length, value(200, i), 200);
            }
            assertThat(cache.get(column, hot, hot.length)).as("the entry used all along stays").hasSize(100);
            assertThat(cache.bytes()).isLessThanOrEqualTo(MIN_BYTES);
        }

        assertThat(cache.evictions()).isGreaterThan(1000);
        assertThat(cache.size()).isLessThan(2000);
        // Every dirty entry is either still cached dirty or in the database with its latest value.
        for (int i = 0; i < 2000; i += 2) {
            byte[] key = bytes("key-" + i);
            if (!cache.isDirty(column, key, key.length)) {
                assertThat(db.get(column, "key-" + i)).as("key-%d", i).containsExactly(value(200, i));
            }
        }
        // Clean entries were never written; evictions were written back in batches, not one commit each.
        assertThat(db.columns.get(0).keySet()).noneMatch(k -> k.startsWith("key-") && Integer.parseInt(k.substring(4)) % 2 == 1);
        assertThat(db.commits.size()).isLessThan(written / 4);
    }

    @Test
    void anEntryTooLargeForTheCacheIsNotCachedAndTheOlderOneIsDropped() {
        FakeDatabase db = new FakeDatabase(1);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        int column = cache.addColumn();
        byte[] key = bytes("big");
        cache.put(column, key, key.length, value(10, 1), 10);

        boolean cached = cache.put(column, key, key.length, value(5000, 2), 5000);

        assertThat(cached).isFalse();
        assertThat(cache.get(column, key, key.length)).as("the caller writes the database").isNull();
        assertThat(db.commits).as("the superseded value is not written back").isEmpty();
        cache.putClean(column, key, key.length, value(5000, 2), 5000);
        assertThat(cache.get(column, key, key.length)).isNull();
    }

    @Test
    void appendingExtendsACachedValueAndGivesUpWhenItWouldGrowTooLarge() {
        FakeDatabase db = new FakeDatabase(1);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        int column = cache.addColumn();
        byte[] key = bytes("list");

        assertThat(cache.append(column, key, key.length, bytes("a"), 1)).as("not cached: a database merge").isFalse();
        cache.putClean(column, key, key.length, null, 0);
        assertThat(cache.append(column, key, key.length, bytes("ab"), 2)).isTrue();
        assertThat(cache.append(column, key, key.length, bytes("c"), 1)).isTrue();
        assertThat(cache.get(column, key, key.length)).containsExactly(bytes("abc"));

        assertThat(cache.append(column, key, key.length, value(5000, 7), 5000)).isFalse();
        assertThat(db.get(column, "list")).as("the dirty value went to the database first").containsExactly(bytes("abc"));
        assertThat(cache.get(column, key, key.length)).isNull();
    }

    /**
     * Seeded random operations against a plain map (the model) and the fake database: after every
     * step each key's cached value equals the model's, a clean entry equals the database, a key not
     * cached has the model's value in the database, and the cache is within its bound; after a
     * flush the database equals the model.
     */
    @Test
    void randomOperationsMatchAPlainMap() {
        for (long seed = 1; seed <= 10; seed++) {
            runRandom(seed);
        }
    }

    private void runRandom(long seed) {
        Random random = new Random(seed);
        FakeDatabase db = new FakeDatabase(2);
        WriteBackCache cache = new WriteBackCache(MIN_BYTES, db);
        cache.addColumn();
        cache.addColumn();
        List<Map<String, byte[]>> model = List.of(new HashMap<>(), new HashMap<>());
        int keys = 200 + random.nextInt(400);
        for (int step = 0; step < 5000; step++) {
            int column = random.nextInt(2);
            int index = random.nextInt(keys);
            String k = KEYS[index];
            byte[] key = KEY_BYTES[index];
            int length = random.nextInt(10) == 0 ? random.nextInt(6000) : random.nextInt(300);
            byte[] value = new byte[length + 1];
            random.nextBytes(value);
            switch (random.nextInt(8)) {
                case 0, 1 -> { // a state's read: hit, or read the database and cache it
                    byte[] cached = cache.get(column, key, key.length);
                    byte[] read = cached != null ? (cached == WriteBackCache.ABSENT ? null : cached)
                            : db.get(column, k);
                    if (cached == null) {
                        cache.putClean(column, key, key.length, read, read == null ? 0 : read.length);
                    }
                    assertThat(read).as("seed %d step %d read %s", seed, step, k).isEqualTo(model.get(column).get(k));
                }
                case 2, 3 -> { // write (the value buffer is longer than the value)
                    if (!cache.put(column, key, key.length, value, length)) {
                        db.columns.get(column).put(k, Arrays.copyOf(value, length));
                    }
                    model.get(column).put(k, Arrays.copyOf(value, length));
                }
                case 4 -> { // delete
                    if (!cache.put(column, key, key.length, null, 0)) {
                        db.columns.get(column).remove(k);
                    }
                    model.get(column).remove(k);
                }
                case 5 -> { // list append: in the cache, or a database merge
                    int add = Math.min(value.length, 1 + random.nextInt(50));
                    if (!cache.append(column, key, key.length, value, add)) {
                        db.columns.get(column).merge(k, Arrays.copyOf(value, add), WriteBackCacheTest::concat);
                    }
                    model.get(column).merge(k, Arrays.copyOf(value, add), WriteBackCacheTest::concat);
                }
                case 6 -> { // a map clear: flush the column, delete in the database and drop from the cache
                    if (random.nextInt(10) == 0) {
                        cache.flush(column);
                        db.columns.get(column).remove(k);
                        cache.remove(column, key, key.length);
                        model.get(column).remove(k);
                    }
                }
                default -> {
                    if (random.nextInt(20) == 0) {
                        cache.flush();
                        assertThat(db.columns.get(0)).as("seed %d step %d", seed, step)
                                .containsExactlyInAnyOrderEntriesOf(model.get(0));
                        assertThat(db.columns.get(1)).containsExactlyInAnyOrderEntriesOf(model.get(1));
                    }
                }
            }
            assertThat(cache.bytes()).isLessThanOrEqualTo(MIN_BYTES);
            if (step % 5 == 0) {
                checkInvariants(cache, db, model, keys, seed, step);
            }
        }
        assertThat(cache.evictions()).as("seed %d evicted", seed).isPositive();
    }

    private static void checkInvariants(WriteBackCache cache, FakeDatabase db, List<Map<String, byte[]>> model,
            int keys, long seed, int step) {
        for (int column = 0; column < 2; column++) {
            for (int i = 0; i < keys; i++) {
                String k = KEYS[i];
                byte[] key = KEY_BYTES[i];
                byte[] cached = cache.peek(column, key, key.length);
                byte[] expected = model.get(column).get(k);
                if (cached == null) {
                    check(Arrays.equals(db.get(column, k), expected), "not cached, so the database is current", seed,
                            step, column, k);
                    continue;
                }
                check(Arrays.equals(cached == WriteBackCache.ABSENT ? null : cached, expected), "cached", seed, step,
                        column, k);
                if (!cache.isDirty(column, key, key.length)) {
                    check(Arrays.equals(db.get(column, k), expected), "clean, so the database agrees", seed, step,
                            column, k);
                }
            }
        }
    }

    private static void check(boolean holds, String invariant, long seed, int step, int column, String key) {
        if (!holds) {
            throw new AssertionError(invariant + ": does not hold at seed " + seed + " step " + step + " column "
                    + column + " key " + key);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}

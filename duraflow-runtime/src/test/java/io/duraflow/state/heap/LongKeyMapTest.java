package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongKeyMapTest {
    @Test
    void behavesLikeAHashMapUnderRandomPutsRemovesAndCopies() {
        for (long seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            LongKeyMap<Long> map = new LongKeyMap<>();
            Map<Long, Long> expected = new HashMap<>();
            // few distinct keys, so that probe runs collide, wrap around the table and shift back on removal
            int keyRange = 1 + random.nextInt(200);
            for (int step = 0; step < 5_000; step++) {
                long key = random.nextInt(keyRange) - keyRange / 2 + (random.nextBoolean() ? 0 : 1L << 40);
                switch (random.nextInt(4)) {
                    case 0, 1 -> assertThat(map.put(key, (long) step)).isEqualTo(expected.put(key, (long) step));
                    case 2 -> assertThat(map.remove(key)).isEqualTo(expected.remove(key));
                    default -> {
                        LongKeyMap<Long> copy = map.copy();
                        assertThat(copy).isEqualTo(expected);
                    }
                }
                assertThat(map.get(key)).isEqualTo(expected.get(key));
                assertThat(map.containsKey(key)).isEqualTo(expected.containsKey(key));
                assertThat(map.size()).isEqualTo(expected.size());
            }
            assertThat(map).as("seed %d", seed).isEqualTo(expected);
            List<Long> keys = new ArrayList<>(map.keySet());
            assertThat(keys).containsExactlyInAnyOrderElementsOf(expected.keySet());
        }
    }

    @Test
    void writesTheSameBytesAsTheGenericPathOfAMapWithLongKeys() {
        StateCodec<String> codec = StateCodec.value(io.duraflow.api.types.Types.STRING);
        Random random = new Random(3);
        LongKeyMap<String> map = new LongKeyMap<>();
        for (int i = 0; i < 5_000; i++) {
            long key = random.nextLong() >> random.nextInt(64);
            map.put(key, "v" + key);
            if (i % 7 == 0) {
                map.remove(key); // removal shifts entries back: the order must still be the iterator's
            }
        }
        io.duraflow.api.types.DataWriter fast = new io.duraflow.api.types.DataWriter();
        map.writeEntries(codec, fast);
        io.duraflow.api.types.DataWriter generic = new io.duraflow.api.types.DataWriter();
        generic.writeVarInt(map.size());
        for (Map.Entry<Long, String> entry : map.entrySet()) {
            io.duraflow.api.types.Types.LONG.write(entry.getKey(), generic);
            codec.write(entry.getValue(), generic);
        }
        assertThat(fast.toByteArray()).isEqualTo(generic.toByteArray());
    }

    @Test
    void growsPastItsInitialCapacityAndKeepsEveryEntry() {
        LongKeyMap<String> map = new LongKeyMap<>();
        for (long key = 0; key < 100_000; key++) {
            map.put(key * 128, "v" + key);
        }
        assertThat(map).hasSize(100_000);
        for (long key = 0; key < 100_000; key++) {
            assertThat(map.get(key * 128)).isEqualTo("v" + key);
        }
        assertThat(map.get("not a long")).isNull();
    }

    @Test
    void refusesNullValuesAndACopyIsIndependent() {
        LongKeyMap<String> map = new LongKeyMap<>();
        assertThatThrownBy(() -> map.put(1L, null)).isInstanceOf(NullPointerException.class);
        map.put(1L, "a");
        LongKeyMap<String> copy = map.copy();
        copy.put(1L, "b");
        copy.put(2L, "c");
        assertThat(map).containsExactly(Map.entry(1L, "a"));
        assertThat(map.computeIfAbsent(3L, k -> "d")).isEqualTo("d");
        assertThat(map.computeIfAbsent(3L, k -> "e")).isEqualTo("d");
    }

    @Test
    void aPutAfterAGetOfTheSameKeyReplacesItsEntryAndNeverAnotherThatMovedIntoItsSlot() {
        LongKeyMap<String> map = new LongKeyMap<>();
        // Keys whose home slots collide, so removing the first shifts the second into its slot.
        List<Long> colliding = new ArrayList<>();
        for (long key = 0; colliding.size() < 2; key++) {
            if (colliding.isEmpty() || slotsCollide(colliding.get(0), key)) {
                colliding.add(key);
            }
        }
        long first = colliding.get(0);
        long second = colliding.get(1);
        map.putLong(first, "a");
        map.putLong(second, "b");
        assertThat(map.getLong(first)).isEqualTo("a");
        assertThat(map.putLong(first, "a2")).isEqualTo("a");
        assertThat(map.getLong(first)).isEqualTo("a2");
        map.remove(first); // the second moves back into the slot the get found
        assertThat(map.putLong(first, "a3")).isNull();
        assertThat(map).containsOnly(Map.entry(first, "a3"), Map.entry(second, "b"));
    }

    /** Whether two keys have the same home slot in a map of the minimum capacity. */
    private static boolean slotsCollide(long a, long b) {
        long golden = 0x9E3779B97F4A7C15L;
        return (a * golden) >>> 60 == (b * golden) >>> 60;
    }
}

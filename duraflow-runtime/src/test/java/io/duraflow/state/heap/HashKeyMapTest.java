package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HashKeyMapTest {
    /** A key whose hash code the test chooses: equal hashes of unequal keys share probe runs. */
    private record Colliding(int id, int hash) {
        @Override
        public int hashCode() {
            return hash;
        }
    }

    @Test
    void behavesLikeAHashMapUnderRandomPutsRemovesAndCopies() {
        for (long seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            HashKeyMap<Colliding, Long> map = new HashKeyMap<>();
            Map<Colliding, Long> expected = new HashMap<>();
            // few distinct keys and fewer distinct hashes, so that probe runs collide, keys of one hash
            // are told apart by equals, runs wrap around the table and shift back on removal
            int keyRange = 1 + random.nextInt(200);
            int hashRange = 1 + random.nextInt(keyRange);
            for (int step = 0; step < 5_000; step++) {
                int id = random.nextInt(keyRange);
                Colliding key = new Colliding(id, id % hashRange);
                switch (random.nextInt(4)) {
                    case 0, 1 -> assertThat(map.put(key, (long) step)).isEqualTo(expected.put(key, (long) step));
                    case 2 -> assertThat(map.remove(key)).isEqualTo(expected.remove(key));
                    default -> assertThat(map.copy()).isEqualTo(expected);
                }
                Colliding other = new Colliding(key.id(), key.hash()); // equal, not the same object
                assertThat(map.get(other)).isEqualTo(expected.get(key));
                assertThat(map.containsKey(other)).isEqualTo(expected.containsKey(key));
                assertThat(map.size()).isEqualTo(expected.size());
            }
            assertThat(map).as("seed %d", seed).isEqualTo(expected);
            List<Colliding> keys = new ArrayList<>(map.keySet());
            assertThat(keys).containsExactlyInAnyOrderElementsOf(expected.keySet());
        }
    }

    @Test
    void aPutAfterAGetOfAnEqualKeyReplacesTheValueInTheSlotFound() {
        HashKeyMap<String, String> map = new HashKeyMap<>();
        map.put("a", "1");
        map.put("b", "2");
        assertThat(map.get(new String("a"))).isEqualTo("1");
        // the hint is the slot of "a"; "b" must not land there
        assertThat(map.put("b", "3")).isEqualTo("2");
        assertThat(map.put(new String("a"), "4")).isEqualTo("1");
        assertThat(map).containsExactlyInAnyOrderEntriesOf(Map.of("a", "4", "b", "3"));
    }

    @Test
    void growsPastItsInitialCapacityAndKeepsEveryEntry() {
        HashKeyMap<String, String> map = new HashKeyMap<>();
        for (int key = 0; key < 100_000; key++) {
            map.put("key-" + key, "v" + key);
        }
        assertThat(map).hasSize(100_000);
        for (int key = 0; key < 100_000; key++) {
            assertThat(map.get("key-" + key)).isEqualTo("v" + key);
        }
        assertThat(map.get(42L)).isNull();
        assertThat(map.get(null)).isNull();
    }

    @Test
    void refusesNullsAndACopyIsIndependent() {
        HashKeyMap<String, String> map = new HashKeyMap<>();
        assertThatThrownBy(() -> map.put("k", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> map.put(null, "v")).isInstanceOf(NullPointerException.class);
        map.put("k", "v");
        HashKeyMap<String, String> copy = map.copy();
        map.put("k", "changed");
        map.put("other", "x");
        assertThat(copy).containsExactly(Map.entry("k", "v"));
        assertThat(map.remove("k")).isEqualTo("changed");
        assertThat(copy.get("k")).isEqualTo("v");
    }

    @Test
    void touchHomeChangesNothingAndReturnsTheKeyInTheHomeSlot() {
        HashKeyMap<String, String> map = new HashKeyMap<>();
        map.put("k", "v");
        long[] sink = new long[1];
        assertThat(map.touchHome("k".hashCode(), sink)).isEqualTo("k");
        assertThat(map).containsExactly(Map.entry("k", "v"));
    }
}

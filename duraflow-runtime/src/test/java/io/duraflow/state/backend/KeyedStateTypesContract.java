package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Part of the keyed backend contract ({@link KeyedStateBackendContractTest}): value, list and map
 * state per key, what a second declaration of a state's name does, keys the backend may not hold,
 * and a seeded random mix of all of it checked against a model through snapshots and restores.
 */
public interface KeyedStateTypesContract extends KeyedStateBackendFixture {
    // ---- every state type ---------------------------------------------------------------

    @Test
    default void valueStateIsPerKeyAndClears() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ValueState<Tuple2<Long, Long>> sum = backend.getState(SUM);

        backend.setCurrentKey(1L);
        assertThat(sum.value()).isNull();
        sum.update(Tuple2.of(1L, 10L));
        backend.setCurrentKey(2L);
        sum.update(Tuple2.of(2L, 20L));
        backend.setCurrentKey(1L);
        assertThat(sum.value()).isEqualTo(Tuple2.of(1L, 10L));
        sum.clear();
        assertThat(sum.value()).isNull();
        backend.setCurrentKey(2L);
        assertThat(sum.value()).isEqualTo(Tuple2.of(2L, 20L));
        sum.update(null);
        assertThat(sum.value()).isNull();
        assertThat(backend.currentKey()).isEqualTo(2L);
        assertThat(backend.currentKeyGroup()).isEqualTo(keyGroupOf(2L));
    }

    @Test
    default void listStateKeepsOrderAddsAllReplacesAndClears() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ListState<String> events = backend.getListState(EVENTS);

        backend.setCurrentKey(5L);
        assertThat(events.get()).isEmpty();
        events.add("x");
        events.addAll(List.of("y", "z"));
        assertThat(events.get()).containsExactly("x", "y", "z");
        backend.setCurrentKey(6L);
        assertThat(events.get()).isEmpty();
        events.update(List.of("q"));
        backend.setCurrentKey(5L);
        events.update(List.of("r", "s"));
        assertThat(events.get()).containsExactly("r", "s");
        events.clear();
        assertThat(events.get()).isEmpty();
        backend.setCurrentKey(6L);
        assertThat(events.get()).containsExactly("q");
        assertThatThrownBy(() -> events.add(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    default void mapStatePutsRemovesAndIterates() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        MapState<String, Long> counts = backend.getMapState(COUNTS);

        backend.setCurrentKey(3L);
        assertThat(counts.isEmpty()).isTrue();
        counts.put("a", 1L);
        counts.putAll(Map.of("b", 2L, "c", 3L));
        assertThat(counts.get("b")).isEqualTo(2L);
        assertThat(counts.contains("c")).isTrue();
        assertThat(counts.contains("d")).isFalse();
        counts.remove("b");
        counts.remove("nothing");
        assertThat(counts.keys()).containsExactlyInAnyOrder("a", "c");
        assertThat(counts.values()).containsExactlyInAnyOrder(1L, 3L);
        assertThat(counts.entries()).containsExactlyInAnyOrder(Map.entry("a", 1L), Map.entry("c", 3L));
        backend.setCurrentKey(4L);
        assertThat(counts.isEmpty()).isTrue();
        assertThat(counts.get("a")).isNull();
        backend.setCurrentKey(3L);
        counts.clear();
        assertThat(counts.isEmpty()).isTrue();
        counts.put("z", 9L);
        counts.remove("z");
        assertThat(counts.isEmpty()).isTrue();
    }

    @Test
    default void theSameDescriptorGivesTheSameStateAndAnotherDeclarationOfItsNameIsAnError() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ValueState<Tuple2<Long, Long>> first = backend.getState(SUM);

        assertThat(backend.getState(new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG))))
                .isSameAs(first);
        assertThatThrownBy(() -> backend.getState(new ValueStateDescriptor<>("sum", Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'")
                .hasMessageContaining("value(string)").hasMessageContaining("value(tuple2(long,long))");
        assertThatThrownBy(() -> backend.getListState(new ListStateDescriptor<>("sum", Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'");
        assertThat(backend.stateNames()).containsExactly("sum");
    }

    @Test
    default void aKeyOutsideTheOwnedKeyGroupsAndStateWithoutAKeyAreErrors() throws IOException {
        KeyedStateBackend<Long> half = backend(Types.LONG, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        long foreign = 0;
        while (half.keyGroupRange().contains(keyGroupOf(foreign))) {
            foreign++;
        }
        long foreignKey = foreign;
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);

        assertThatThrownBy(sum::value).isInstanceOf(IllegalStateException.class).hasMessageContaining("no current key");
        assertThatThrownBy(() -> half.setCurrentKey(foreignKey)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key group " + keyGroupOf(foreignKey));
    }

    // ---- random operations against a model (a seeded property test) ---------------------

    @Test
    default void randomOperationsMatchAModelThroughSnapshotsAndRestores() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            runRandomOperations(seed);
        }
    }

    private void runRandomOperations(long seed) throws Exception {
        Random random = new Random(seed);
        KeyedStateBackend<Long> backend = backend();
        Map<Long, Tuple2<Long, Long>> sums = new HashMap<>();
        Map<Long, List<String>> events = new HashMap<>();
        Map<Long, Map<String, Long>> counts = new HashMap<>();
        for (int step = 0; step < 3000; step++) {
            long key = random.nextInt(200);
            backend.setCurrentKey(key);
            switch (random.nextInt(9)) {
                case 0 -> {
                    Tuple2<Long, Long> value = Tuple2.of(random.nextLong(), (long) step);
                    backend.getState(SUM).update(value);
                    sums.put(key, value);
                }
                case 1 -> {
                    backend.getState(SUM).clear();
                    sums.remove(key);
                }
                case 2 -> {
                    backend.getListState(EVENTS).add("e" + step);
                    events.computeIfAbsent(key, k -> new ArrayList<>()).add("e" + step);
                }
                case 3 -> {
                    List<String> list = random.nextBoolean() ? List.of() : List.of("u" + step, "v" + step);
                    backend.getListState(EVENTS).update(list);
                    if (list.isEmpty()) {
                        events.remove(key);
                    } else {
                        events.put(key, new ArrayList<>(list));
                    }
                }
                case 4 -> {
                    String mapKey = "m" + random.nextInt(5);
                    backend.getMapState(COUNTS).put(mapKey, (long) step);
                    counts.computeIfAbsent(key, k -> new HashMap<>()).put(mapKey, (long) step);
                }
                case 5 -> {
                    String mapKey = "m" + random.nextInt(5);
                    backend.getMapState(COUNTS).remove(mapKey);
                    Map<String, Long> map = counts.get(key);
                    if (map != null) {
                        map.remove(mapKey);
                        if (map.isEmpty()) {
                            counts.remove(key);
                        }
                    }
                }
                case 6 -> {
                    backend.getMapState(COUNTS).clear();
                    counts.remove(key);
                }
                case 7 -> {
                    if (random.nextInt(20) == 0) {
                        backend = restored(ALL, snapshot(backend));
                    }
                }
                default -> {
                    // reads in between, checked below
                }
            }
            if (random.nextInt(50) == 0 || step == 2999) {
                for (long k = 0; k < 200; k++) {
                    backend.setCurrentKey(k);
                    assertThat(backend.getState(SUM).value()).as("seed %d step %d key %d", seed, step, k)
                            .isEqualTo(sums.get(k));
                    assertThat(backend.getListState(EVENTS).get()).as("seed %d step %d key %d", seed, step, k)
                            .containsExactlyElementsOf(events.getOrDefault(k, List.of()));
                    Map<String, Long> actual = new HashMap<>();
                    backend.getMapState(COUNTS).entries().forEach(e -> actual.put(e.getKey(), e.getValue()));
                    assertThat(actual).as("seed %d step %d key %d", seed, step, k)
                            .isEqualTo(counts.getOrDefault(k, Map.of()));
                }
            }
        }
    }
}

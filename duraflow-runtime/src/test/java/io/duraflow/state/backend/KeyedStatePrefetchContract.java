package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Part of the keyed backend contract ({@link KeyedStateBackendContractTest}): {@link
 * KeyedStateBackend#prefetch} is a hint only, whatever keys it is given (null, foreign, repeated,
 * of another type) and in whatever order the keys come afterwards.
 */
public interface KeyedStatePrefetchContract extends KeyedStateBackendFixture {
    @Test
    default void prefetchIsOnlyAHintWhateverKeysItGetsAndWhicheverComeNext() throws IOException {
        KeyedStateBackend<Long> half = backend(Types.LONG, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);
        List<Long> owned = new ArrayList<>();
        long foreign = -1;
        for (long key = 1000; owned.size() < 40 || foreign < 0; key++) {
            if (half.keyGroupRange().contains(keyGroupOf(key))) {
                owned.add(key);
            } else if (foreign < 0) {
                foreign = key;
            }
        }
        Map<Long, Long> model = new HashMap<>();
        // A batch longer than any backend uses, with a null, a foreign key and a repeated key in it.
        Object[] batch = new Object[40];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = owned.get(i % 25);
        }
        batch[3] = null;
        batch[7] = foreign;
        half.prefetch(batch, batch.length);
        for (int i = 0; i < batch.length; i++) {
            if (i == 3) {
                continue; // a record the selector gave no key: processing it fails, the rest go on
            }
            Long key = (Long) batch[i];
            if (i == 7) {
                assertThatThrownBy(() -> half.setCurrentKey(key)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("key group " + keyGroupOf(key));
                continue;
            }
            // Every third key comes as an equal but other object than the prefetched one.
            half.setCurrentKey(i % 3 == 0 ? Long.valueOf(key.longValue() + 0) : key);
            assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
            Tuple2<Long, Long> before = sum.value();
            assertThat(before == null ? null : before.f0()).isEqualTo(model.get(key));
            sum.update(Tuple2.of((before == null ? 0 : before.f0()) + i, 1L));
            model.merge(key, (long) i, Long::sum);
        }
        // Keys out of the prefetched order, and a prefetch nobody follows.
        half.prefetch(new Object[] {owned.get(30), owned.get(31)}, 2);
        for (long key : List.of(owned.get(31), owned.get(0), owned.get(30))) {
            half.setCurrentKey(key);
            assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
            Tuple2<Long, Long> value = sum.value();
            assertThat(value == null ? null : value.f0()).isEqualTo(model.get(key));
        }
        half.prefetch(new Object[0], 0);
        half.setCurrentKey(owned.get(1));
        assertThat(sum.value().f0()).isEqualTo(model.get(owned.get(1)));

        KeyedStateBackend<String> strings = backend(Types.STRING, ALL, List.of());
        ValueState<Tuple2<Long, Long>> byName = strings.getState(SUM);
        strings.prefetch(new Object[] {"a", 5L, null}, 3);
        strings.setCurrentKey("a");
        byName.update(Tuple2.of(1L, 1L));
        assertThat(byName.value()).isEqualTo(Tuple2.of(1L, 1L));
    }

    @Test
    default void prefetchOfStringKeysIsOnlyAHintToo() throws IOException {
        KeyedStateBackend<String> half = backend(Types.STRING, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);
        ListState<String> seen = half.getListState(new ListStateDescriptor<>("seen", Types.STRING));
        List<String> owned = new ArrayList<>();
        String foreign = null;
        for (int i = 0; owned.size() < 40 || foreign == null; i++) {
            String key = "key-" + i;
            if (half.keyGroupRange().contains(keyGroupOf(key))) {
                owned.add(key);
            } else if (foreign == null) {
                foreign = key;
            }
        }
        Map<String, Long> model = new HashMap<>();
        Object[] batch = new Object[40];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = owned.get(i % 25);
        }
        batch[5] = foreign;
        for (int round = 0; round < 3; round++) {
            half.prefetch(batch, batch.length);
            for (int i = 0; i < batch.length; i++) {
                String key = (String) batch[i];
                if (i == 5) {
                    assertThatThrownBy(() -> half.setCurrentKey(key)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("key group " + keyGroupOf(key));
                    continue;
                }
                // Every other key comes as an equal but other object than the prefetched one.
                half.setCurrentKey(i % 2 == 0 ? new String(key) : key);
                assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
                Tuple2<Long, Long> before = sum.value();
                assertThat(before == null ? null : before.f0()).isEqualTo(model.get(key));
                sum.update(Tuple2.of((before == null ? 0 : before.f0()) + i, 1L));
                seen.add(Integer.toString(i));
                model.merge(key, (long) i, Long::sum);
            }
        }
        half.setCurrentKey(owned.get(0));
        assertThat(seen.get()).containsExactly("0", "25", "0", "25", "0", "25");
    }

    private static int keyGroupOf(String key) {
        DataWriter out = new DataWriter();
        Types.STRING.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }
}

package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateTableTest {
    @Test
    void freezingCopiesNothingAndTheFirstWriteCopiesOnlyItsKeyGroup() {
        StateTable<String, Long> table = new StateTable<>(10, 3, value -> value);
        table.writable(10).put("a", 1L);
        table.writable(11).put("b", 2L);

        Map<String, Long>[] frozen = table.freeze();
        assertThat(table.readable(10)).isSameAs(frozen[0]);

        table.writable(10).put("a", 5L);
        table.writable(10).put("c", 6L);

        assertThat(frozen[0]).containsExactly(Map.entry("a", 1L));
        assertThat(table.readable(10)).isNotSameAs(frozen[0]).containsOnlyKeys("a", "c");
        assertThat(table.readable(11)).as("an untouched group is not copied").isSameAs(frozen[1]);
        assertThat(table.get("a", 10)).isEqualTo(5L);
        assertThat(table.size()).isEqualTo(3);
    }

    @Test
    void mutableContainersAreCopiedWithTheirGroupSoTheFrozenOnesStay() {
        StateTable<String, ArrayList<String>> table = new StateTable<>(0, 1, ArrayList::new);
        table.writable(0).computeIfAbsent("k", k -> new ArrayList<>()).add("x");

        Map<String, ArrayList<String>>[] frozen = table.freeze();
        table.writable(0).get("k").add("y");

        assertThat(frozen[0].get("k")).containsExactly("x");
        assertThat(table.get("k", 0)).containsExactly("x", "y");
        // a second snapshot freezes the copy; the first one's map still stays as it was
        Map<String, ArrayList<String>>[] second = table.freeze();
        table.writable(0).remove("k");
        assertThat(second[0].get("k")).isEqualTo(List.of("x", "y"));
        assertThat(frozen[0].get("k")).isEqualTo(List.of("x"));
        assertThat(table.readable(0)).isEmpty();
    }

    @Test
    void prefetchReadsHomeSlotsAndChangesNothing() {
        StateTable<Long, String> table = new StateTable<>(4, 2, value -> value, true);
        table.writable(4).put(7L, "seven");
        table.writable(5).put(8L, "eight");
        Map<Long, String>[] frozen = table.freeze();
        Object[] scratch = new Object[3];
        long[] sink = {0};

        int found = table.prefetch(new long[] {7L, 8L, 9L}, new int[] {4, 5, 5}, 3, scratch, sink);

        assertThat(found).as("the values in the home slots of 7 and 8; 9 has none").isEqualTo(2);
        assertThat(scratch).containsOnlyNulls();
        assertThat(sink[0]).isEqualTo(15L);
        assertThat(table.readable(4)).isSameAs(frozen[0]).containsExactly(Map.entry(7L, "seven"));
        assertThat(table.readable(5)).isSameAs(frozen[1]).containsExactly(Map.entry(8L, "eight"));
    }
}

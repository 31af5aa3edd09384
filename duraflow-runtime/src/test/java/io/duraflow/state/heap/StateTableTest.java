package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateTableTest {
    @Test
    void freezingCopiesNothingAndTheFirstWriteCopiesOnlyItsKeyGroup() {
        StateTable<String, Long> table = new StateTable<>(10, 3, null);
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
    void aContainerIsCopiedWhenFirstChangedAfterAFreezeSoTheFrozenOneStays() {
        StateTable<String, ArrayList<String>> table = new StateTable<>(0, 1, (list, epoch) -> new Containers.EpochList<>(epoch, list));
        table.writableContainer("k", 0, Containers.EpochList::new).add("x");
        table.writableContainer("other", 0, Containers.EpochList::new).add("o");

        Map<String, ArrayList<String>>[] frozen = table.freeze();
        ArrayList<String> changed = table.writableContainer("k", 0, Containers.EpochList::new);
        changed.add("y");

        assertThat(frozen[0].get("k")).containsExactly("x");
        assertThat(table.get("k", 0)).containsExactly("x", "y");
        assertThat(table.get("other", 0)).as("a container the task did not change is not copied")
                .isSameAs(frozen[0].get("other"));
        assertThat(table.writableContainer("k", 0, Containers.EpochList::new))
                .as("copied once per freeze: the copy is the task's").isSameAs(changed);
        // a second snapshot freezes the copy; the first one's map still stays as it was
        Map<String, ArrayList<String>>[] second = table.freeze();
        table.writableContainer("k", 0, Containers.EpochList::new).add("z");
        table.writable(0).remove("other");
        assertThat(second[0].get("k")).isEqualTo(List.of("x", "y"));
        assertThat(second[0].get("other")).isEqualTo(List.of("o"));
        assertThat(frozen[0].get("k")).isEqualTo(List.of("x"));
        assertThat(table.get("k", 0)).isEqualTo(List.of("x", "y", "z"));
    }

    @Test
    void aRestoredPlainContainerIsCopiedBeforeItIsChanged() {
        StateTable<String, ArrayList<String>> table = new StateTable<>(0, 1, (list, epoch) -> new Containers.EpochList<>(epoch, list));
        ArrayList<String> restored = new ArrayList<>(List.of("r"));
        table.writable(0).put("k", restored);

        table.writableContainer("k", 0, Containers.EpochList::new).add("s");

        assertThat(restored).containsExactly("r");
        assertThat(table.get("k", 0)).containsExactly("r", "s");
    }

    @Test
    void prefetchReadsHomeSlotsAndChangesNothing() {
        StateTable<Long, String> table = new StateTable<>(4, 2, null, true);
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

    @Test
    void prefetchOfOtherKeysReadsHomeSlotsAndChangesNothing() {
        StateTable<String, String> table = new StateTable<>(4, 2, null);
        table.writable(4).put("seven", "7");
        table.writable(5).put("eight", "8");
        Map<String, String>[] frozen = table.freeze();
        Object[] scratch = new Object[3];
        long[] sink = {0};

        int found = table.prefetchHashed(new int[] {"seven".hashCode(), "eight".hashCode(), "nine".hashCode()},
                new int[] {4, 5, 5}, 3, scratch, sink);

        assertThat(found).as("the keys in the home slots of seven and eight; nine's has none").isEqualTo(2);
        assertThat(scratch).containsOnlyNulls();
        assertThat(table.readable(4)).isSameAs(frozen[0]).containsExactly(Map.entry("seven", "7"));
        assertThat(table.readable(5)).isSameAs(frozen[1]).containsExactly(Map.entry("eight", "8"));
        table.writable(4).put("six", "6");
        assertThat(frozen[0]).as("a write after the freeze copies the group").containsOnlyKeys("seven");
    }
}

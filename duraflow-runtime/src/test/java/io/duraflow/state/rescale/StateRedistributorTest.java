package io.duraflow.state.rescale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorStateHandle.Distribution;
import io.duraflow.state.OperatorStateHandle.StateList;
import io.duraflow.state.OperatorSubtaskState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StateRedistributorTest {
    private static final int MAX = 16;

    private static KeyGroupsStateHandle keyed(int parallelism, int index) {
        KeyGroupRange range = KeyGroupRange.ofOperatorIndex(MAX, parallelism, index);
        long[] offsets = new long[range.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = 100 + i;
        }
        return new KeyGroupsStateHandle(range, offsets, new InlineStateHandle(new byte[] {(byte) index}));
    }

    private static List<OperatorSubtaskState> keyedAt(int parallelism) {
        List<OperatorSubtaskState> states = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            states.add(new OperatorSubtaskState(List.of(keyed(parallelism, i)), List.of()));
        }
        return states;
    }

    @Test
    void eachKeyGroupGoesToExactlyItsNewOwnerWithItsOffset() {
        for (int from : new int[] {1, 2, 3, 5}) {
            for (int to : new int[] {1, 2, 3, 7, 16}) {
                List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(keyedAt(from), to, MAX);
                assertThat(assigned).hasSize(to);
                int[] owners = new int[MAX];
                for (int i = 0; i < to; i++) {
                    KeyGroupRange mine = KeyGroupRange.ofOperatorIndex(MAX, to, i);
                    for (KeyedStateHandle handle : assigned.get(i).keyedState()) {
                        KeyGroupsStateHandle groups = (KeyGroupsStateHandle) handle;
                        assertThat(mine.intersection(groups.keyGroupRange())).isEqualTo(groups.keyGroupRange());
                        for (int g = groups.keyGroupRange().start(); g <= groups.keyGroupRange().end(); g++) {
                            owners[g]++;
                            int oldOwner = KeyGroupRange.operatorIndexOf(MAX, from, g);
                            assertThat(groups.offsetOf(g)).isEqualTo(keyed(from, oldOwner).offsetOf(g));
                        }
                    }
                }
                assertThat(owners).as("%d -> %d", from, to).containsOnly(1);
            }
        }
    }

    @Test
    void theSameParallelismRestoresEachInstanceWhatItHad() {
        List<OperatorSubtaskState> old = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            OperatorStateHandle handle = new OperatorStateHandle(Map.of(
                    "splits", new StateList(Distribution.SPLIT, new long[] {10 * i, 10 * i + 1, 10 * i + 2}),
                    "offsets", new StateList(Distribution.UNION, new long[] {7})),
                    new InlineStateHandle(new byte[] {(byte) i}));
            old.add(new OperatorSubtaskState(List.of(keyed(3, i)), List.of(handle)));
        }

        List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(old, 3, MAX);

        for (int i = 0; i < 3; i++) {
            assertThat(assigned.get(i).keyedState()).containsExactlyElementsOf(old.get(i).keyedState());
            // its own handle unchanged, plus the union list of the two others
            assertThat(assigned.get(i).operatorState()).hasSize(3).contains(old.get(i).operatorState().get(0));
        }
    }

    @Test
    void splitElementsAreDealtOutExactlyOnceAndUnionListsGoEverywhere() {
        Random random = new Random(3);
        for (int round = 0; round < 50; round++) {
            int from = 1 + random.nextInt(5);
            int to = 1 + random.nextInt(6);
            List<OperatorSubtaskState> old = new ArrayList<>();
            Map<String, Integer> expected = new HashMap<>();
            for (int i = 0; i < from; i++) {
                int count = random.nextInt(6);
                long[] offsets = new long[count];
                for (int e = 0; e < count; e++) {
                    offsets[e] = 1000L * i + e;
                    expected.put(i + ":" + offsets[e], 0);
                }
                old.add(new OperatorSubtaskState(List.of(), List.of(new OperatorStateHandle(Map.of(
                        "splits", new StateList(Distribution.SPLIT, offsets),
                        "union", new StateList(Distribution.UNION, new long[] {5, 6})),
                        new InlineStateHandle(new byte[] {(byte) i})))));
            }

            List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(old, to, MAX);

            Map<String, Integer> seen = new HashMap<>();
            List<Integer> perInstance = new ArrayList<>();
            for (OperatorSubtaskState state : assigned) {
                int mine = 0;
                int unionLists = 0;
                for (OperatorStateHandle handle : state.operatorState()) {
                    int oldIndex = ((InlineStateHandle) handle.stream()).bytes()[0];
                    StateList splits = handle.lists().get("splits");
                    if (splits != null) {
                        for (long offset : splits.elementOffsets()) {
                            seen.merge(oldIndex + ":" + offset, 1, Integer::sum);
                            mine++;
                        }
                    }
                    if (handle.lists().containsKey("union")) {
                        assertThat(handle.lists().get("union").elementOffsets()).containsExactly(5, 6);
                        unionLists++;
                    }
                }
                assertThat(unionLists).isEqualTo(from);
                perInstance.add(mine);
            }
            assertThat(seen.keySet()).isEqualTo(expected.keySet());
            assertThat(seen.values()).allMatch(times -> times == 1);
            if (from != to) {
                int max = perInstance.stream().mapToInt(Integer::intValue).max().orElseThrow();
                int min = perInstance.stream().mapToInt(Integer::intValue).min().orElseThrow();
                assertThat(max - min).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void everyOperatorOfATaskIsRedistributedByItsUid() {
        OperatorStateHandle sourceState = new OperatorStateHandle(Map.of(
                "splits", new StateList(Distribution.SPLIT, new long[] {1, 2, 3})), new InlineStateHandle(new byte[1]));
        List<io.duraflow.state.TaskStateSnapshot> old = List.of(
                new io.duraflow.state.TaskStateSnapshot(Map.of(
                        "source", new OperatorSubtaskState(List.of(), List.of(sourceState)),
                        "sum", new OperatorSubtaskState(List.of(keyed(2, 0)), List.of()))),
                new io.duraflow.state.TaskStateSnapshot(Map.of(
                        "sum", new OperatorSubtaskState(List.of(keyed(2, 1)), List.of()))));

        List<io.duraflow.state.TaskStateSnapshot> assigned = StateRedistributor.redistributeTask(old, 3, MAX);

        assertThat(assigned).hasSize(3);
        int splits = 0;
        for (int i = 0; i < 3; i++) {
            OperatorSubtaskState sum = assigned.get(i).operators().get("sum");
            int groups = 0;
            for (KeyedStateHandle handle : sum.keyedState()) {
                groups += handle.keyGroupRange().size();
            }
            assertThat(groups).isEqualTo(KeyGroupRange.ofOperatorIndex(MAX, 3, i).size());
            OperatorSubtaskState source = assigned.get(i).operators().get("source");
            splits += source.operatorState().get(0).lists().get("splits").elementOffsets().length;
        }
        assertThat(splits).isEqualTo(3);
    }

    @Test
    void aParallelismAboveTheMaxIsRefused() {
        assertThatThrownBy(() -> StateRedistributor.redistribute(keyedAt(2), MAX + 1, MAX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max parallelism " + MAX);
    }
}

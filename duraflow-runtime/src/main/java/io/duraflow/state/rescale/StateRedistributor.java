package io.duraflow.state.rescale;

import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorStateHandle.Distribution;
import io.duraflow.state.OperatorStateHandle.StateList;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which state each parallel instance of an operator restores, given what the instances of the
 * checkpoint held: a pure function of the handles, the new parallelism and the max parallelism.
 * Handles are cut and regrouped, never read. Its rules: see
 * docs/design/state-backends.md#stateredistributor.
 */
public final class StateRedistributor {
    private StateRedistributor() {
    }

    /**
     * The same for every operator of a task (a chain), matched by operator uid: each operator's
     * state is redistributed on its own (an instance that held nothing for an operator counts as
     * empty), and each new instance gets one snapshot with the state of every operator.
     *
     * @param previous what each old instance acknowledged, by old subtask index
     * @return what each new instance restores, by new subtask index; operators it gets nothing of are absent
     */
    public static List<TaskStateSnapshot> redistributeTask(List<TaskStateSnapshot> previous, int newParallelism,
            int maxParallelism) {
        Map<String, List<OperatorSubtaskState>> byOperator = new TreeMap<>();
        for (int i = 0; i < previous.size(); i++) {
            for (Map.Entry<String, OperatorSubtaskState> entry : previous.get(i).operators().entrySet()) {
                List<OperatorSubtaskState> states = byOperator.computeIfAbsent(entry.getKey(), uid -> {
                    List<OperatorSubtaskState> empty = new ArrayList<>();
                    for (int j = 0; j < previous.size(); j++) {
                        empty.add(OperatorSubtaskState.EMPTY);
                    }
                    return empty;
                });
                states.set(i, entry.getValue());
            }
        }
        List<Map<String, OperatorSubtaskState>> result = new ArrayList<>();
        for (int i = 0; i < newParallelism; i++) {
            result.add(new HashMap<>());
        }
        for (Map.Entry<String, List<OperatorSubtaskState>> entry : byOperator.entrySet()) {
            List<OperatorSubtaskState> assigned = redistribute(entry.getValue(), newParallelism, maxParallelism);
            for (int i = 0; i < newParallelism; i++) {
                if (!assigned.get(i).isEmpty()) {
                    result.get(i).put(entry.getKey(), assigned.get(i));
                }
            }
        }
        return result.stream().map(TaskStateSnapshot::new).toList();
    }

    /**
     * @param previous the state of each old instance, by old subtask index
     * @return the state of each new instance, by new subtask index
     */
    public static List<OperatorSubtaskState> redistribute(List<OperatorSubtaskState> previous, int newParallelism,
            int maxParallelism) {
        if (newParallelism < 1 || newParallelism > maxParallelism) {
            throw new IllegalArgumentException("cannot restore with parallelism " + newParallelism + ": it must be"
                    + " between 1 and the max parallelism " + maxParallelism);
        }
        boolean sameParallelism = previous.size() == newParallelism;
        List<List<KeyedStateHandle>> keyed = new ArrayList<>();
        List<List<OperatorStateHandle>> operator = new ArrayList<>();
        for (int i = 0; i < newParallelism; i++) {
            keyed.add(new ArrayList<>());
            operator.add(new ArrayList<>());
        }
        for (int i = 0; i < newParallelism; i++) {
            KeyGroupRange range = KeyGroupRange.ofOperatorIndex(maxParallelism, newParallelism, i);
            for (OperatorSubtaskState old : previous) {
                for (KeyedStateHandle handle : old.keyedState()) {
                    KeyedStateHandle part = handle.intersection(range);
                    if (part != null) {
                        keyed.get(i).add(part);
                    }
                }
            }
        }
        // Rule 2: one round-robin counter per list name across all old instances.
        Map<String, Integer> dealt = new HashMap<>();
        for (int oldIndex = 0; oldIndex < previous.size(); oldIndex++) {
            for (OperatorStateHandle handle : previous.get(oldIndex).operatorState()) {
                List<Map<String, List<Long>>> split = new ArrayList<>();
                for (int i = 0; i < newParallelism; i++) {
                    split.add(new TreeMap<>());
                }
                Map<String, StateList> union = new TreeMap<>();
                for (Map.Entry<String, StateList> entry : new TreeMap<>(handle.lists()).entrySet()) {
                    String name = entry.getKey();
                    StateList list = entry.getValue();
                    if (list.distribution() == Distribution.UNION) {
                        union.put(name, list);
                        continue;
                    }
                    for (long offset : list.elementOffsets()) {
                        int target;
                        if (sameParallelism) {
                            target = oldIndex;
                        } else {
                            int count = dealt.getOrDefault(name, 0);
                            dealt.put(name, count + 1);
                            target = count % newParallelism;
                        }
                        split.get(target).computeIfAbsent(name, n -> new ArrayList<>()).add(offset);
                    }
                }
                for (int i = 0; i < newParallelism; i++) {
                    Map<String, StateList> lists = new HashMap<>(union);
                    for (Map.Entry<String, List<Long>> entry : split.get(i).entrySet()) {
                        long[] offsets = entry.getValue().stream().mapToLong(Long::longValue).toArray();
                        lists.put(entry.getKey(), new StateList(Distribution.SPLIT, offsets));
                    }
                    if (!lists.isEmpty()) {
                        operator.get(i).add(lists.equals(handle.lists()) ? handle
                                : new OperatorStateHandle(lists, handle.stream()));
                    }
                }
            }
        }
        List<OperatorSubtaskState> result = new ArrayList<>(newParallelism);
        for (int i = 0; i < newParallelism; i++) {
            result.add(new OperatorSubtaskState(keyed.get(i), operator.get(i)));
        }
        return result;
    }
}

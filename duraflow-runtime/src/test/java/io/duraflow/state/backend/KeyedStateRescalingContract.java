package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.rescale.StateRedistributor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Part of the keyed backend contract ({@link KeyedStateBackendContractTest}): key groups, with
 * their state and timers of both domains, move to their new owner when the parallelism changes,
 * through a checkpoint and through a savepoint.
 */
public interface KeyedStateRescalingContract extends KeyedStateBackendFixture {
    @Test
    default void rescalingFromTwoToThreeAndFromThreeToOneKeepsEveryKeyWithItsOwner() throws Exception {
        int keys = 3000;
        List<KeyedStateBackend<Long>> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(restored(KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, i), List.of()));
        }
        Map<Long, String> expected = new HashMap<>();
        for (long key = 0; key < keys; key++) {
            KeyedStateBackend<Long> owner = two.get(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, 2, keyGroupOf(key)));
            fill(owner, key);
            registerTimersOfBothDomains(owner, key);
            expected.put(key, dump(owner, key));
        }

        // a checkpoint (native where the backend has one), then a savepoint (canonical)
        List<KeyedStateBackend<Long>> three = rescale(two, 3, SnapshotType.CHECKPOINT);
        assertOwnership(three, expected, keys);
        List<KeyedStateBackend<Long>> one = rescale(three, 1, SnapshotType.SAVEPOINT);
        assertOwnership(one, expected, keys);
    }

    /** A processing-time timer at 100 + key and an event-time timer at 5000 + key. */
    private static void registerTimersOfBothDomains(KeyedStateBackend<Long> backend, long key) {
        backend.timerService().registerTimer(key, 100 + key);
        backend.eventTimerService().registerTimer(key, 5000 + key);
    }

    private List<KeyedStateBackend<Long>> rescale(List<KeyedStateBackend<Long>> from, int parallelism,
            SnapshotType type) throws Exception {
        List<OperatorSubtaskState> old = new ArrayList<>();
        for (KeyedStateBackend<Long> backend : from) {
            old.add(new OperatorSubtaskState(snapshot(backend, type, true), List.of()));
        }
        List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(old, parallelism, MAX_PARALLELISM);
        List<KeyedStateBackend<Long>> result = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            result.add(restored(KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, parallelism, i),
                    assigned.get(i).keyedState()));
        }
        return result;
    }

    private void assertOwnership(List<KeyedStateBackend<Long>> backends, Map<Long, String> expected, int keys)
            throws Exception {
        int parallelism = backends.size();
        int timers = 0;
        int eventTimers = 0;
        for (KeyedStateBackend<Long> backend : backends) {
            timers += backend.timerService().size();
            eventTimers += backend.eventTimerService().size();
        }
        assertThat(timers).isEqualTo(keys);
        assertThat(eventTimers).isEqualTo(keys);
        for (long key = 0; key < keys; key++) {
            int owner = KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key));
            assertThat(dump(backends.get(owner), key)).as("key %d at its owner %d", key, owner)
                    .isEqualTo(expected.get(key));
        }
        java.util.Set<Long> firedProcessing = new java.util.HashSet<>();
        java.util.Set<Long> firedEvent = new java.util.HashSet<>();
        for (int i = 0; i < parallelism; i++) {
            int index = i;
            backends.get(i).timerService().fireUpTo(5000 + keys, (key, time) -> {
                assertThat(time).isEqualTo(100 + key);
                assertThat(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key)))
                        .isEqualTo(index);
                assertThat(firedProcessing.add(key)).isTrue();
            });
            backends.get(i).eventTimerService().fireUpTo(5000 + keys, (key, time) -> {
                assertThat(time).isEqualTo(5000 + key);
                assertThat(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key)))
                        .isEqualTo(index);
                assertThat(firedEvent.add(key)).isTrue();
            });
        }
        assertThat(firedProcessing).hasSize(keys);
        assertThat(firedEvent).hasSize(keys);
        // firing consumed the timers of these backends; restore them for the next step from fresh snapshots
        for (int i = 0; i < parallelism; i++) {
            KeyedStateBackend<Long> backend = backends.get(i);
            for (long key = 0; key < keys; key++) {
                if (backend.keyGroupRange().contains(keyGroupOf(key))) {
                    registerTimersOfBothDomains(backend, key);
                }
            }
        }
    }
}

package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heap backend's timer queue (a bucket per time) against a model, a sorted set of (time, key):
 * random registrations, deletions (enough for the queue to be rebuilt), registrations again of
 * deleted timers, and firings, some of which register timers at or before the time that fires.
 */
class HeapTimerServiceTest {
    @TempDir
    Path dir;

    private record Timer(long time, long key) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer other) {
            int byTime = Long.compare(time, other.time);
            return byTime != 0 ? byTime : Long.compare(key, other.key);
        }
    }

    @Test
    void timersFireAsAModelSaysThroughRandomRegistrationsDeletionsAndFirings() throws Exception {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            try (KeyedStateBackend<Long> backend = new HeapStateBackend().createKeyedStateBackend(
                    new KeyedBackendParameters<>("timers " + seed, Types.LONG, 128, new KeyGroupRange(0, 127),
                            List.of(), dir.resolve("s" + seed)))) {
                run(seed, random, backend.timerService());
            }
        }
    }

    private static void run(long seed, Random random, InternalTimerService<Long> timers) throws Exception {
        TreeSet<Timer> model = new TreeSet<>();
        long now = 0;
        // Few distinct times, as windows have, in some seeds; many in others.
        int times = seed % 2 == 0 ? 5 : 500;
        // Many deleted and few live: the queue is rebuilt without the deleted ones.
        for (int i = 0; i < 3_000; i++) {
            Timer timer = new Timer(1 + random.nextInt(times) * (seed % 2 == 0 ? 100 : 1), 10_000 + i);
            timers.registerTimer(timer.key(), timer.time());
            model.add(timer);
        }
        for (Timer timer : new ArrayList<>(model)) {
            if (random.nextInt(10) > 0) {
                timers.deleteTimer(timer.key(), timer.time());
                model.remove(timer);
            }
        }
        for (int step = 0; step < 6_000; step++) {
            int op = random.nextInt(10);
            long key = random.nextInt(300);
            long time = now + 1 + random.nextInt(times) * (seed % 2 == 0 ? 100 : 1);
            if (op < 5) {
                timers.registerTimer(key, time);
                model.add(new Timer(time, key));
            } else if (op < 8) {
                Timer some = model.isEmpty() ? new Timer(time, key) : model.ceiling(new Timer(time, key));
                Timer victim = some != null ? some : model.first();
                timers.deleteTimer(victim.key(), victim.time());
                model.remove(victim);
            } else {
                long upTo = now + random.nextInt(times) * (seed % 2 == 0 ? 100 : 1);
                List<Timer> fired = new ArrayList<>();
                List<Timer> expected = new ArrayList<>();
                timers.fireUpTo(upTo, (k, t) -> {
                    fired.add(new Timer(t, k));
                    if (random.nextInt(20) == 0) {
                        // A timer registered while firing, at the time that fires: it fires in this call.
                        timers.registerTimer(k + 1000, t);
                        model.add(new Timer(t, k + 1000));
                    }
                });
                while (!model.isEmpty() && model.first().time() <= upTo) {
                    expected.add(model.pollFirst());
                }
                assertThat(fired).as("seed %d, step %d", seed, step).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(fired).as("in time order").isSortedAccordingTo((a, b) -> Long.compare(a.time(), b.time()));
                now = Math.max(now, upTo);
            }
            assertThat(timers.size()).as("seed %d, step %d", seed, step).isEqualTo(model.size());
            assertThat(timers.nextTimerTime()).isEqualTo(model.isEmpty() ? InternalTimerService.NO_TIMER
                    : model.first().time());
        }
    }
}

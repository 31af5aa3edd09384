package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.heap.HeapStateBackend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CurrentKeyTimerServiceTest {
    @TempDir
    Path dir;

    @Test
    void timersApplyToTheCurrentKeyAndTimeComesFromTheInjectedClock() throws Exception {
        KeyedStateBackend<String> backend = new HeapStateBackend().createKeyedStateBackend(new KeyedBackendParameters<>(
                "op", Types.STRING, 16, new KeyGroupRange(0, 15), List.of(), dir));
        AtomicLong clock = new AtomicLong(1000);
        CurrentKeyTimerService<String> timers = new CurrentKeyTimerService<>(backend, clock::get, () -> 77L);
        assertThatThrownBy(() -> timers.registerProcessingTimeTimer(5)).isInstanceOf(IllegalStateException.class);

        backend.setCurrentKey("a");
        timers.registerProcessingTimeTimer(timers.currentProcessingTime() + 10);
        backend.setCurrentKey("b");
        timers.registerProcessingTimeTimer(1005);
        timers.registerProcessingTimeTimer(1020);
        timers.deleteProcessingTimeTimer(1020);
        clock.set(1010);

        List<String> fired = new ArrayList<>();
        backend.timerService().fireUpTo(timers.currentProcessingTime(), (key, time) -> fired.add(key + "@" + time));
        assertThat(fired).containsExactly("b@1005", "a@1010");
        assertThat(backend.timerService().size()).isZero();
    }

    @Test
    void eventTimeTimersGoToTheEventTimerServiceOfTheCurrentKey() throws Exception {
        KeyedStateBackend<String> backend = new HeapStateBackend().createKeyedStateBackend(new KeyedBackendParameters<>(
                "op", Types.STRING, 16, new KeyGroupRange(0, 15), List.of(), dir));
        CurrentKeyTimerService<String> timers = new CurrentKeyTimerService<>(backend, () -> 1000L, () -> 77L);
        assertThatThrownBy(() -> timers.registerEventTimeTimer(5)).isInstanceOf(IllegalStateException.class);

        backend.setCurrentKey("a");
        timers.registerEventTimeTimer(80);
        timers.registerProcessingTimeTimer(80);
        backend.setCurrentKey("b");
        timers.registerEventTimeTimer(78);
        timers.registerEventTimeTimer(90);
        timers.deleteEventTimeTimer(90);
        timers.deleteProcessingTimeTimer(78);

        List<String> fired = new ArrayList<>();
        backend.eventTimerService().fireUpTo(Long.MAX_VALUE, (key, time) -> fired.add(key + "@" + time));
        assertThat(fired).containsExactly("b@78", "a@80");
        assertThat(timers.currentWatermark()).isEqualTo(77L);
        assertThat(backend.timerService().size()).isEqualTo(1);
    }
}

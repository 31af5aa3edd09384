package io.duraflow.state.backend;

import io.duraflow.api.functions.TimerService;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The {@link TimerService} a {@code KeyedProcessFunction} sees: timers of the backend's current
 * key, and the processing time from the task's clock (injected, so tests drive it).
 */
public final class CurrentKeyTimerService<K> implements TimerService {
    private final KeyedStateBackend<K> backend;
    private final LongSupplier processingTimeMs;

    public CurrentKeyTimerService(KeyedStateBackend<K> backend, LongSupplier processingTimeMs) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.processingTimeMs = Objects.requireNonNull(processingTimeMs, "processingTimeMs");
    }

    @Override
    public long currentProcessingTime() {
        return processingTimeMs.getAsLong();
    }

    @Override
    public void registerProcessingTimeTimer(long time) {
        backend.timerService().registerProcessingTimeTimer(currentKey(), time);
    }

    @Override
    public void deleteProcessingTimeTimer(long time) {
        backend.timerService().deleteProcessingTimeTimer(currentKey(), time);
    }

    private K currentKey() {
        K key = backend.currentKey();
        if (key == null) {
            throw new IllegalStateException("timers belong to a key: use them while processing a keyed record or timer");
        }
        return key;
    }
}

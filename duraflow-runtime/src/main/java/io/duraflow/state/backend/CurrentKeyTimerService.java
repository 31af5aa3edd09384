package io.duraflow.state.backend;

import io.duraflow.api.functions.TimerService;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The {@link TimerService} a {@code KeyedProcessFunction} sees: timers of the backend's current
 * key in its two timer services (processing and event time), the processing time from the task's
 * clock and the operator's watermark (injected, so tests drive them).
 */
public final class CurrentKeyTimerService<K> implements TimerService {
    private final KeyedStateBackend<K> backend;
    private final LongSupplier processingTimeMs;
    private final LongSupplier watermark;

    public CurrentKeyTimerService(KeyedStateBackend<K> backend, LongSupplier processingTimeMs, LongSupplier watermark) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.processingTimeMs = Objects.requireNonNull(processingTimeMs, "processingTimeMs");
        this.watermark = Objects.requireNonNull(watermark, "watermark");
    }

    @Override
    public long currentProcessingTime() {
        return processingTimeMs.getAsLong();
    }

    @Override
    public long currentWatermark() {
        return watermark.getAsLong();
    }

    @Override
    public void registerProcessingTimeTimer(long time) {
        backend.timerService().registerTimer(currentKey(), time);
    }

    @Override
    public void deleteProcessingTimeTimer(long time) {
        backend.timerService().deleteTimer(currentKey(), time);
    }

    @Override
    public void registerEventTimeTimer(long time) {
        backend.eventTimerService().registerTimer(currentKey(), time);
    }

    @Override
    public void deleteEventTimeTimer(long time) {
        backend.eventTimerService().deleteTimer(currentKey(), time);
    }

    private K currentKey() {
        K key = backend.currentKey();
        if (key == null) {
            throw new IllegalStateException("timers belong to a key: use them while processing a keyed record or timer");
        }
        return key;
    }
}

package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.functions.TimerService;
import io.duraflow.api.functions.TimestampedCollector;
import io.duraflow.api.state.KeyedStateStore;
import io.duraflow.state.backend.CurrentKeyTimerService;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.HeadOperator;

/**
 * Runs a {@link KeyedProcessFunction}: sets each record's key as the backend's current key, so
 * the function's state and timers are those of that key. Timers of both domains live in the keyed
 * backend (they are checkpointed):
 *
 * <ul>
 *   <li>processing-time timers fire as mails on the task thread; this operator only keeps one
 *       wake-up scheduled at the earliest one;
 *   <li>event-time timers fire in {@link #processWatermark}: every timer at or below the watermark,
 *       in time order, each with its time as the timestamp of what it emits (and timers they
 *       register at or below the watermark in the same call), before the watermark goes
 *       downstream. The end of time ({@code Long.MAX_VALUE}, before the end of input) fires all.
 * </ul>
 */
final class KeyedProcessOperator implements HeadOperator {
    private final KeySelector<Object, Object> keySelector;
    private final KeyedProcessFunction<Object, Object, Object> function;
    private final Downstream out;
    private final ProcessingTimeService time;
    private final Collector<Object> collector;
    private KeyedStateBackend<Object> backend;
    private InternalTimerService<Object> timers;
    private InternalTimerService<Object> eventTimers;
    private KeyedProcessFunction.Context<Object> context;
    /** The domain of the timer firing now; null while a record is processed. */
    private TimeDomain firingDomain;
    private final KeyPrefetch keyPrefetch;
    /**
     * The timestamp of the record in flight; an event-time timer's output has the timer's time, a
     * processing-time timer's none.
     */
    private final RecordTime recordTime;
    /** The latest watermark received. */
    private long watermark = Long.MIN_VALUE;
    /** The time of the wake-up scheduled now, or NO_TIMER. */
    private long wakeUpAt = InternalTimerService.NO_TIMER;

    KeyedProcessOperator(Operation.KeyedProcessOp op, Downstream out, ProcessingTimeService time, RecordTime recordTime) {
        this.recordTime = recordTime;
        this.keySelector = op.keySelector();
        this.function = op.function();
        this.out = out;
        this.time = time;
        this.keyPrefetch = new KeyPrefetch(keySelector);
        this.collector = new TimestampedCollector<>() {
            @Override
            public void collect(Object record) {
                try {
                    out.push(record);
                } catch (Exception e) {
                    throw ChainedOperators.ChainException.wrap(e);
                }
            }

            @Override
            public void collect(Object record, long timestamp) {
                long previous = recordTime.timestamp;
                recordTime.timestamp = timestamp;
                try {
                    collect(record);
                } finally {
                    recordTime.timestamp = previous;
                }
            }
        };
    }

    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
        return function.isSnapshotAvailable(checkpointId);
    }

    @Override
    public void initializeState(StateInitializationContext state) {
        if (state.keyedState() == null) {
            throw new IllegalStateException("a keyed process function needs keyed state, and its task has none");
        }
        backend = state.keyedState();
        timers = backend.timerService();
        eventTimers = backend.eventTimerService();
        TimerService timerService = new CurrentKeyTimerService<>(backend, time::currentTimeMs, () -> watermark);
        context = new KeyedProcessFunction.Context<>() {
            @Override
            public Object currentKey() {
                return backend.currentKey();
            }

            @Override
            public long timestamp() {
                return recordTime.timestamp;
            }

            @Override
            public TimerService timerService() {
                return timerService;
            }

            @Override
            public TimeDomain timeDomain() {
                if (firingDomain == null) {
                    throw new IllegalStateException("timeDomain() is the domain of the timer that fires: call it in"
                            + " onTimer, not in processElement");
                }
                return firingDomain;
            }
        };
    }

    @Override
    public void open(OperatorContext operator) throws Exception {
        function.open(new RuntimeContext() {
            @Override
            public int subtaskIndex() {
                return operator.subtaskIndex();
            }

            @Override
            public int parallelism() {
                return operator.parallelism();
            }

            @Override
            public int attemptNumber() {
                return operator.attemptNumber();
            }

            @Override
            public KeyedStateStore state() {
                return backend;
            }
        });
        // Timers restored from a checkpoint fire (at once, if their time passed meanwhile).
        scheduleWakeUp();
    }

    @Override
    public void process(int input, Object record, int serializedBytes) throws Exception {
        backend.setCurrentKey(keySelector.getKey(record));
        function.processElement(record, context, collector);
        if (timers.nextTimerTime() < wakeUpAt) {
            scheduleWakeUp();
        }
    }

    @Override
    public void prefetch(int input, Object[] records, int count) {
        keyPrefetch.prefetch(backend, records, count);
    }

    /** A wake-up came (possibly early or for a timer deleted since): fire what is due, schedule the next. */
    private void onWakeUp() throws Exception {
        wakeUpAt = InternalTimerService.NO_TIMER;
        timers.fireUpTo(time.currentTimeMs(), (key, timestamp) -> {
            recordTime.timestamp = TimestampAssigner.NO_TIMESTAMP;
            onTimer(TimeDomain.PROCESSING_TIME, timestamp);
        });
        scheduleWakeUp();
    }

    private void onTimer(TimeDomain domain, long timestamp) throws Exception {
        firingDomain = domain;
        try {
            function.onTimer(timestamp, context, collector);
        } finally {
            firingDomain = null;
        }
    }

    private void scheduleWakeUp() {
        long next = timers.nextTimerTime();
        if (next != InternalTimerService.NO_TIMER && next < wakeUpAt) {
            wakeUpAt = next;
            time.wakeUpAt(next, () -> {
                if (wakeUpAt == next) {
                    onWakeUp();
                }
            });
        }
    }

    /**
     * The watermark is the operator's event time already while its timers fire (their {@code
     * currentWatermark()} is it), and goes downstream only after them, so what they emit is never
     * behind it.
     */
    @Override
    public void processWatermark(long watermark) throws Exception {
        this.watermark = watermark;
        if (eventTimers.nextTimerTime() <= watermark) {
            eventTimers.fireUpTo(watermark, (key, timestamp) -> {
                recordTime.timestamp = timestamp;
                onTimer(TimeDomain.EVENT_TIME, timestamp);
            });
            if (timers.nextTimerTime() < wakeUpAt) {
                scheduleWakeUp();
            }
        }
        out.processWatermark(watermark);
    }

    @Override
    public void endInput(int input) throws Exception {
        // Processing-time timers not yet due do not fire at the end: their time never came.
    }

    @Override
    public void close() throws Exception {
        function.close();
    }
}

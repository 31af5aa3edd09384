package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.OutputTag;
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
import io.duraflow.taskmanager.task.SideOutputs;
import io.duraflow.taskmanager.task.StreamOperator;

/**
 * What a keyed function runs with on its operator ({@link KeyedProcessOperator}, {@link
 * KeyedCoProcessOperator}): the keyed backend whose current key the operator sets per record, the
 * {@link KeyedProcessFunction.Context} and collector the function gets, and the firing of its
 * timers of both domains, which live in the backend (they are checkpointed):
 *
 * <ul>
 *   <li>processing-time timers fire as mails on the task thread; this keeps one wake-up scheduled
 *       at the earliest one ({@link #afterRecord} moves it when a record set an earlier one);
 *   <li>event-time timers fire in {@link #processWatermark}: every timer at or below the watermark,
 *       in time order, each with its time as the timestamp of what it emits (and timers they
 *       register at or below the watermark in the same call), before the watermark goes
 *       downstream. The end of time ({@code Long.MAX_VALUE}, before the end of input) fires all.
 * </ul>
 *
 * An operator with two inputs has one watermark, the gate's combination of both inputs'; keyed
 * state and timers are the key's, whichever input its record came from. Task thread only.
 */
final class KeyedFunctionContext {
    /** The function's {@code onTimer}. */
    interface TimerCallback {
        void onTimer(long timestamp, KeyedProcessFunction.Context<Object> context, Collector<Object> out)
                throws Exception;
    }

    private final Downstream out;
    /** Where {@code context.output(tag, value)} goes, by tag id; a tag nothing reads is dropped. */
    private final SideOutputs sideOutputs;
    private final ProcessingTimeService time;
    /**
     * The timestamp of the record in flight; an event-time timer's output has the timer's time, a
     * processing-time timer's none.
     */
    private final RecordTime recordTime;
    private final TimerCallback onTimer;
    private final Collector<Object> collector;
    private KeyedStateBackend<Object> backend;
    private InternalTimerService<Object> timers;
    private InternalTimerService<Object> eventTimers;
    private KeyedProcessFunction.Context<Object> context;
    /** The domain of the timer firing now; null while a record is processed. */
    private TimeDomain firingDomain;
    /** The latest watermark received. */
    private long watermark = Long.MIN_VALUE;
    /** The time of the wake-up scheduled now, or NO_TIMER. */
    private long wakeUpAt = InternalTimerService.NO_TIMER;

    KeyedFunctionContext(Downstream out, SideOutputs sideOutputs, ProcessingTimeService time, RecordTime recordTime,
            TimerCallback onTimer) {
        this.out = out;
        this.sideOutputs = sideOutputs;
        this.time = time;
        this.recordTime = recordTime;
        this.onTimer = onTimer;
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

    /** From the operator's {@code initializeState}: the keyed backend, restored. */
    void initialize(StreamOperator.StateInitializationContext state, String function) {
        if (state.keyedState() == null) {
            throw new IllegalStateException("a " + function + " needs keyed state, and its task has none");
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

            @Override
            public <X> void output(OutputTag<X> tag, X value) {
                Downstream side = sideOutputs.of(tag.id());
                if (side == null) {
                    return; // no part of the job reads this side output
                }
                try {
                    side.push(value);
                } catch (Exception e) {
                    throw ChainedOperators.ChainException.wrap(e);
                }
            }
        };
    }

    /** What the function's {@code open} gets: where it runs, and the keyed state. */
    RuntimeContext runtimeContext(StreamOperator.OperatorContext operator) {
        return new RuntimeContext() {
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

            @Override
            public MetricGroup metrics() {
                return operator.metrics();
            }
        };
    }

    /** After the function opened: timers restored from a checkpoint fire (at once, if their time passed meanwhile). */
    void start() {
        scheduleWakeUp();
    }

    KeyedStateBackend<Object> backend() {
        return backend;
    }

    KeyedProcessFunction.Context<Object> context() {
        return context;
    }

    Collector<Object> collector() {
        return collector;
    }

    /** The key of the record about to be processed: state and timers are its. */
    void setCurrentKey(Object key) {
        backend.setCurrentKey(key);
    }

    /** After a record: a processing-time timer it set before the scheduled wake-up moves the wake-up. */
    void afterRecord() {
        if (timers.nextTimerTime() < wakeUpAt) {
            scheduleWakeUp();
        }
    }

    /**
     * The watermark is the operator's event time already while its timers fire (their {@code
     * currentWatermark()} is it), and goes downstream only after them, so what they emit is never
     * behind it.
     */
    void processWatermark(long watermark) throws Exception {
        this.watermark = watermark;
        if (eventTimers.nextTimerTime() <= watermark) {
            eventTimers.fireUpTo(watermark, (key, timestamp) -> {
                recordTime.timestamp = timestamp;
                fire(TimeDomain.EVENT_TIME, timestamp);
            });
            afterRecord();
        }
        out.processWatermark(watermark);
        sideOutputs.processWatermark(watermark);
    }

    /** A wake-up came (possibly early or for a timer deleted since): fire what is due, schedule the next. */
    private void onWakeUp() throws Exception {
        wakeUpAt = InternalTimerService.NO_TIMER;
        timers.fireUpTo(time.currentTimeMs(), (key, timestamp) -> {
            recordTime.timestamp = TimestampAssigner.NO_TIMESTAMP;
            fire(TimeDomain.PROCESSING_TIME, timestamp);
        });
        scheduleWakeUp();
    }

    private void fire(TimeDomain domain, long timestamp) throws Exception {
        firingDomain = domain;
        try {
            onTimer.onTimer(timestamp, context, collector);
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
}

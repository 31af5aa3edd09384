package io.duraflow.api.windowing;

import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.eventtime.UsesEventTime;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.functions.TimestampedCollector;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Windows as a keyed process function: the engine runs them like any other, so their contents and
 * timers are keyed state and timers of the state backend, checkpointed, restored and rescaled with
 * it. Per key it keeps (state names are part of the checkpoint format):
 *
 * <ul>
 *   <li>{@value #CONTENTS}: per window, a {@link WindowContents} (the accumulator and counts);
 *   <li>{@value #ELEMENTS}: per window and index, the records of a window that keeps them all;
 *   <li>{@value #MERGED} (merging assigners): the key's windows as one value, a list of (window,
 *       the window its contents are kept under); the second stays the same while the window grows
 *       by merges, so a merge moves only the contents of the windows it absorbs. One value, read
 *       and written once per record: a key has few sessions open, and a map would cost RocksDB an
 *       iterator per record.
 * </ul>
 *
 * <p>Timers are the key's, never deleted: one that fires for a window already gone finds nothing
 * to do, and every timer is offered to every window of its key, whose trigger compares the time
 * with its own. A window's contents are dropped at its cleanup time: its max timestamp plus the
 * allowed lateness in event time, its max timestamp in processing time.
 */
public final class WindowOperator<K, T, W extends Window> extends KeyedProcessFunction<K, T, Object>
        implements UsesEventTime {
    static final String CONTENTS = "window-contents";
    static final String ELEMENTS = "window-elements";
    static final String MERGED = "window-merged";

    private final WindowAssigner<T, W> assigner;
    private final MergingWindowAssigner<T, W> merging;
    private final Trigger<W> trigger;
    private final long allowedLateness;
    private final OutputTag<T> lateTag;
    private final WindowFunction<T, K, W> function;
    private final TypeSerializer<T> elementType;
    private final TypeSerializer<Object> accumulatorType;
    private final boolean eventTime;

    private MapState<W, WindowContents> contents;
    private MapState<WindowContents.Element<W>, T> elements;
    private ValueState<List<Tuple2<W, W>>> merged;
    /** The call being handled, for the trigger's and the window function's contexts. */
    private Context<K> context;
    private final Triggering triggering = new Triggering();
    private final Emitting emitting = new Emitting();
    /** The windows (and their contents) a timer is offered to; empty between timers. */
    private final List<W> timerWindows = new ArrayList<>();
    private final List<WindowContents> timerContents = new ArrayList<>();

    @SuppressWarnings("unchecked")
    WindowOperator(WindowAssigner<T, W> assigner, Trigger<W> trigger, long allowedLateness, OutputTag<T> lateTag,
            WindowFunction<T, K, W> function, TypeSerializer<T> elementType, TypeSerializer<?> accumulatorType) {
        this.assigner = assigner;
        this.merging = assigner instanceof MergingWindowAssigner<T, W> m ? m : null;
        this.trigger = trigger;
        this.allowedLateness = allowedLateness;
        this.lateTag = lateTag;
        this.function = function;
        this.elementType = elementType;
        this.accumulatorType = accumulatorType == null ? (TypeSerializer<Object>) (TypeSerializer<?>) Types.BOOLEAN
                : (TypeSerializer<Object>) accumulatorType;
        this.eventTime = assigner.isEventTime();
        if (merging != null && !trigger.canMerge()) {
            throw new IllegalArgumentException(assigner.description() + " merges windows, but "
                    + trigger.description() + " cannot merge: choose a trigger whose canMerge() is true");
        }
    }

    /**
     * The operator {@code WindowedFlow} runs as its keyed process function.
     *
     * @throws IllegalArgumentException for a merging assigner with a trigger that cannot merge
     */
    public static <K, T, W extends Window> KeyedProcessFunction<K, T, Object> create(WindowAssigner<T, W> assigner,
            Trigger<W> trigger, long allowedLateness, OutputTag<T> lateTag, WindowFunction<T, K, W> function,
            TypeSerializer<T> elementType, TypeSerializer<?> accumulatorType) {
        return new WindowOperator<>(assigner, trigger, allowedLateness, lateTag, function, elementType,
                accumulatorType);
    }

    @Override
    public void open(RuntimeContext runtime) throws Exception {
        TypeSerializer<W> windowType = assigner.windowSerializer();
        contents = runtime.state().getMapState(new MapStateDescriptor<>(CONTENTS, windowType,
                WindowContents.serializer(accumulatorType)));
        if (function.keepsElements()) {
            elements = runtime.state().getMapState(new MapStateDescriptor<>(ELEMENTS,
                    WindowContents.Element.serializer(windowType), elementType));
        }
        if (merging != null) {
            merged = runtime.state().getState(new ValueStateDescriptor<>(MERGED,
                    Types.list(Types.tuple(windowType, windowType))));
        }
        function.open(runtime);
    }

    @Override
    public void processElement(T value, Context<K> context, Collector<Object> out) throws Exception {
        this.context = context;
        long timestamp = eventTime ? context.timestamp() : context.timerService().currentProcessingTime();
        if (eventTime && timestamp == TimestampAssigner.NO_TIMESTAMP) {
            throw new IllegalStateException(assigner.description() + " needs the records' timestamps, and a record"
                    + " has none: give the source a WatermarkStrategy (fromSource(name, source, strategy)) or call"
                    + " assignTimestampsAndWatermarks before keyBy");
        }
        boolean skipped = true;
        for (W window : assigner.assignWindows(value, timestamp)) {
            W actual = window;
            W stateWindow = window;
            if (merging != null) {
                Tuple2<W, W> into = mergeIn(window);
                if (into == null) {
                    continue;
                }
                actual = into.f0();
                stateWindow = into.f1();
            } else if (isWindowLate(window)) {
                continue;
            }
            skipped = false;
            WindowContents current = contents.get(stateWindow);
            if (current == null) {
                current = WindowContents.EMPTY;
                // The window's first record (or first since a purge); a merge registered its own.
                registerCleanupTimer(actual);
            }
            if (elements != null) {
                elements.put(new WindowContents.Element<>(stateWindow, current.elements()), value);
            }
            current = current.added(function.add(current.accumulator(), value));
            contents.put(stateWindow, current);
            triggering.set(actual, current);
            apply(trigger.onElement(timestamp, actual, triggering), actual, stateWindow, current, out);
        }
        if (skipped && eventTime && isLate(timestamp)) {
            if (lateTag != null) {
                context.output(lateTag, value);
            }
        }
    }

    @Override
    public void onTimer(long time, Context<K> context, Collector<Object> out) throws Exception {
        this.context = context;
        boolean eventDomain = context.timeDomain() == TimeDomain.EVENT_TIME;
        if (merging != null) {
            onMergedTimer(time, eventDomain, out);
            return;
        }
        // The key's windows first (handling one changes the map), into lists kept for the next timer.
        List<W> windows = timerWindows;
        List<WindowContents> found = timerContents;
        for (Map.Entry<W, WindowContents> entry : contents.entries()) {
            windows.add(entry.getKey());
            found.add(entry.getValue());
        }
        try {
            for (int i = 0; i < windows.size(); i++) {
                W window = windows.get(i);
                onTimer(time, eventDomain, window, window, found.get(i), out);
                if (eventDomain == eventTime && time == cleanupTime(window)) {
                    clear(window);
                }
            }
        } finally {
            windows.clear();
            found.clear();
        }
    }

    private void onMergedTimer(long time, boolean eventDomain, Collector<Object> out) throws Exception {
        List<Tuple2<W, W>> windows = mergedWindows();
        List<Tuple2<W, W>> kept = new ArrayList<>(windows.size());
        for (Tuple2<W, W> entry : windows) {
            W actual = entry.f0();
            W stateWindow = entry.f1();
            WindowContents current = contents.get(stateWindow);
            if (current != null) {
                onTimer(time, eventDomain, actual, stateWindow, current, out);
            }
            if (eventDomain == eventTime && time == cleanupTime(actual)) {
                clear(stateWindow);
            } else {
                kept.add(entry);
            }
        }
        if (kept.size() < windows.size()) {
            merged.update(kept.isEmpty() ? null : kept);
        }
    }

    private void onTimer(long time, boolean eventDomain, W actual, W stateWindow, WindowContents current,
            Collector<Object> out) throws Exception {
        triggering.set(actual, current);
        TriggerResult result = eventDomain ? trigger.onEventTime(time, actual, triggering)
                : trigger.onProcessingTime(time, actual, triggering);
        apply(result, actual, stateWindow, current, out);
    }

    /** The key's merged windows: (window, the window its contents are kept under). */
    private List<Tuple2<W, W>> mergedWindows() {
        List<Tuple2<W, W>> windows = merged.value();
        return windows == null ? List.of() : windows;
    }

    /**
     * Adds {@code window} to the key's merged windows, merging it with those it overlaps, and
     * returns (the window it is now part of, the window its contents are kept under); null when it
     * is late and overlaps none (then it is not added). Lists are values: a new one is stored.
     */
    private Tuple2<W, W> mergeIn(W window) throws Exception {
        List<Tuple2<W, W>> windows = mergedWindows();
        List<Tuple2<W, W>> overlapping = new ArrayList<>(2);
        List<Tuple2<W, W>> others = new ArrayList<>(windows.size() + 1);
        for (Tuple2<W, W> entry : windows) {
            (merging.mergeable(entry.f0(), window) ? overlapping : others).add(entry);
        }
        if (overlapping.isEmpty()) {
            if (isWindowLate(window)) {
                return null;
            }
            Tuple2<W, W> fresh = Tuple2.of(window, window);
            others.add(fresh);
            merged.update(others);
            return fresh;
        }
        W result = window;
        for (Tuple2<W, W> entry : overlapping) {
            result = merging.merge(result, entry.f0());
        }
        if (overlapping.size() == 1 && result.equals(overlapping.get(0).f0())) {
            return overlapping.get(0); // inside a window of the key already
        }
        W stateWindow = overlapping.get(0).f1();
        WindowContents target = contents.get(stateWindow);
        for (Tuple2<W, W> entry : overlapping) {
            W absorbed = entry.f1();
            WindowContents moved = absorbed.equals(stateWindow) ? null : contents.get(absorbed);
            if (moved != null) {
                target = absorb(stateWindow, target, absorbed, moved);
            }
        }
        Tuple2<W, W> grown = Tuple2.of(result, stateWindow);
        others.add(grown);
        merged.update(others);
        WindowContents mergedContents = target == null ? WindowContents.EMPTY : target;
        if (target != null) {
            contents.put(stateWindow, target);
        }
        triggering.set(result, mergedContents);
        trigger.onMerge(result, triggering);
        registerCleanupTimer(result);
        return grown;
    }

    /** Moves the contents of {@code from} into those of {@code into}; returns the merged contents. */
    private WindowContents absorb(W into, WindowContents target, W from, WindowContents moved) throws Exception {
        contents.remove(from);
        if (target == null) {
            target = WindowContents.EMPTY;
        }
        if (elements != null) {
            for (long i = 0; i < moved.elements(); i++) {
                WindowContents.Element<W> id = new WindowContents.Element<>(from, i);
                elements.put(new WindowContents.Element<>(into, target.elements() + i), elements.get(id));
                elements.remove(id);
            }
        }
        Object accumulator = target.accumulator() == null ? moved.accumulator()
                : moved.accumulator() == null ? target.accumulator()
                : function.merge(target.accumulator(), moved.accumulator());
        return new WindowContents(accumulator, target.elements() + moved.elements(),
                target.sinceFire() + moved.sinceFire());
    }

    private void apply(TriggerResult result, W window, W stateWindow, WindowContents current, Collector<Object> out)
            throws Exception {
        if (result.isFire() && current.elements() > 0) {
            emitting.fire(window, stateWindow, current, out);
        }
        if (result.isPurge()) {
            clear(stateWindow);
        } else if (result.isFire()) {
            contents.put(stateWindow, new WindowContents(current.accumulator(), current.elements(), 0));
        }
    }

    /** Drops the contents kept under {@code stateWindow}. */
    private void clear(W stateWindow) {
        WindowContents current = contents.get(stateWindow);
        if (current == null) {
            return;
        }
        if (elements != null) {
            for (long i = 0; i < current.elements(); i++) {
                elements.remove(new WindowContents.Element<>(stateWindow, i));
            }
        }
        contents.remove(stateWindow);
    }

    private long cleanupTime(W window) {
        long max = window.maxTimestamp();
        if (!eventTime) {
            return max;
        }
        long cleanup = max + allowedLateness;
        return cleanup < max ? Long.MAX_VALUE : cleanup;
    }

    private void registerCleanupTimer(W window) {
        long time = cleanupTime(window);
        if (time == Long.MAX_VALUE) {
            return; // a window that never ends
        }
        if (eventTime) {
            context.timerService().registerEventTimeTimer(time);
        } else {
            context.timerService().registerProcessingTimeTimer(time);
        }
    }

    private boolean isWindowLate(W window) {
        return eventTime && cleanupTime(window) <= context.timerService().currentWatermark();
    }

    private boolean isLate(long timestamp) {
        long last = timestamp + allowedLateness;
        return (last < timestamp ? Long.MAX_VALUE : last) <= context.timerService().currentWatermark();
    }

    @Override
    public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return function.isSnapshotAvailable(checkpointId);
    }

    @Override
    public String eventTimeUse() {
        return eventTime ? assigner.description() : null;
    }

    @Override
    public void close() throws Exception {
        function.close();
    }

    /** The trigger's view of the window being handled. */
    private final class Triggering implements TriggerContext {
        private WindowContents current;

        void set(W window, WindowContents current) {
            this.current = current;
        }

        @Override
        public long currentWatermark() {
            return context.timerService().currentWatermark();
        }

        @Override
        public long currentProcessingTime() {
            return context.timerService().currentProcessingTime();
        }

        @Override
        public void registerEventTimeTimer(long time) {
            context.timerService().registerEventTimeTimer(time);
        }

        @Override
        public void registerProcessingTimeTimer(long time) {
            context.timerService().registerProcessingTimeTimer(time);
        }

        @Override
        public long count() {
            return current.sinceFire();
        }
    }

    /** Runs the window function on a window and gives its output the window's max timestamp. */
    private final class Emitting implements ProcessWindowFunction.Context<W>, Collector<Object> {
        private W window;
        private Collector<Object> out;

        @SuppressWarnings("unchecked")
        void fire(W window, W stateWindow, WindowContents current, Collector<Object> out) throws Exception {
            this.window = window;
            this.out = out;
            List<T> all = null;
            if (elements != null) {
                all = new ArrayList<>((int) Math.min(current.elements(), 1 << 16));
                for (long i = 0; i < current.elements(); i++) {
                    all.add(elements.get(new WindowContents.Element<>(stateWindow, i)));
                }
            }
            function.emit((K) context.currentKey(), this, current.accumulator(), all, this);
        }

        @Override
        public void collect(Object record) {
            if (out instanceof TimestampedCollector<Object> timestamped) {
                timestamped.collect(record, window.maxTimestamp());
            } else {
                out.collect(record);
            }
        }

        @Override
        public W window() {
            return window;
        }

        @Override
        public long currentWatermark() {
            return context.timerService().currentWatermark();
        }

        @Override
        public long currentProcessingTime() {
            return context.timerService().currentProcessingTime();
        }

        @Override
        public <X> void output(OutputTag<X> tag, X value) {
            context.output(tag, value);
        }
    }
}

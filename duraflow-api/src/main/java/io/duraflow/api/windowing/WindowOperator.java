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
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Windows as a keyed process function: the engine runs them like any other, so their contents and
 * timers are keyed state and timers of the state backend, checkpointed, restored and rescaled with
 * it. Per key it keeps (state names are part of the checkpoint format):
 *
 * <ul>
 *   <li>{@value #PANES}: the key's open windows as one value, a list of {@link Pane}s (the window,
 *       the window its records are kept under, its {@link WindowContents}). Read once and written
 *       once per record or timer: a record of a sliding window updates several windows of its key,
 *       and one value costs a lookup where a map of windows cost two per window (and RocksDB an
 *       iterator per timer).
 *   <li>{@value #ELEMENTS}: per window and index, the records of a window that keeps them all.
 * </ul>
 *
 * <p>Merging assigners keep a window's records under the first window of a merge while it grows, so
 * a merge moves only the records of the windows it absorbs.
 *
 * <p>Timers are the key's, never deleted: one that fires for a window already gone finds nothing
 * to do, and every timer is offered to every window of its key, whose trigger compares the time
 * with its own. A window's contents are dropped at its cleanup time: its max timestamp plus the
 * allowed lateness in event time, its max timestamp in processing time.
 */
public final class WindowOperator<K, T, W extends Window> extends KeyedProcessFunction<K, T, Object>
        implements UsesEventTime {
    static final String PANES = "window-panes";
    static final String ELEMENTS = "window-elements";

    private final WindowAssigner<T, W> assigner;
    private final MergingWindowAssigner<T, W> merging;
    private final Trigger<W> trigger;
    private final long allowedLateness;
    private final OutputTag<T> lateTag;
    private final WindowFunction<T, K, W> function;
    private final TypeSerializer<T> elementType;
    private final TypeSerializer<Object> accumulatorType;
    private final boolean eventTime;

    private ValueState<List<Pane<W>>> stored;
    private MapState<WindowContents.Element<W>, T> elements;
    /**
     * The current key's panes while a record or timer is handled: a copy of the stored list (which
     * a snapshot may hold, so it is never changed), stored again at the end if {@link #changed}.
     */
    private final ArrayList<Pane<W>> panes = new ArrayList<>();
    private boolean changed;
    /** The panes a merge absorbs; empty between merges. */
    private final List<Pane<W>> overlapping = new ArrayList<>();
    /** The call being handled, for the trigger's and the window function's contexts. */
    private Context<K> context;
    private final Triggering triggering = new Triggering();
    private final Emitting emitting = new Emitting();

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
        stored = runtime.state().getState(new ValueStateDescriptor<>(PANES,
                Types.list(Pane.serializer(windowType, WindowContents.serializer(accumulatorType)))));
        if (function.keepsElements()) {
            elements = runtime.state().getMapState(new MapStateDescriptor<>(ELEMENTS,
                    WindowContents.Element.serializer(windowType), elementType));
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
        load();
        boolean skipped = true;
        for (W window : assigner.assignWindows(value, timestamp)) {
            int at = merging != null ? mergeIn(window) : isWindowLate(window) ? -1 : indexOrAdd(window);
            if (at < 0) {
                continue;
            }
            skipped = false;
            Pane<W> pane = panes.get(at);
            WindowContents current = pane.contents();
            if (current == null) {
                current = WindowContents.EMPTY;
                // The window's first record (or first since a purge); a merge registered its own.
                registerCleanupTimer(pane.window());
            }
            if (elements != null) {
                elements.put(new WindowContents.Element<>(pane.stateWindow(), current.elements()), value);
            }
            current = current.added(function.add(current.accumulator(), value));
            set(at, pane.with(current));
            triggering.set(current);
            apply(trigger.onElement(timestamp, pane.window(), triggering), at, out);
        }
        store();
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
        load();
        for (int i = 0; i < panes.size(); i++) {
            Pane<W> pane = panes.get(i);
            if (pane.contents() != null) {
                triggering.set(pane.contents());
                TriggerResult result = eventDomain ? trigger.onEventTime(time, pane.window(), triggering)
                        : trigger.onProcessingTime(time, pane.window(), triggering);
                apply(result, i, out);
            }
            if (eventDomain == eventTime && time == cleanupTime(pane.window())) {
                clearElements(panes.get(i));
                panes.remove(i--);
                changed = true;
            }
        }
        store();
    }

    /** Reads the current key's panes into {@link #panes}. */
    private void load() {
        panes.clear();
        changed = false;
        List<Pane<W>> value = stored.value();
        if (value != null) {
            panes.addAll(value);
        }
    }

    /** Stores {@link #panes} if changed: a new list, dropping purged windows that do not merge. */
    private void store() {
        if (!changed) {
            return;
        }
        if (merging == null) {
            panes.removeIf(pane -> pane.contents() == null);
        }
        stored.update(panes.isEmpty() ? null : List.copyOf(panes));
        panes.clear();
    }

    private void set(int at, Pane<W> pane) {
        panes.set(at, pane);
        changed = true;
    }

    /** The index of {@code window}'s pane, added without contents if the key has none. */
    private int indexOrAdd(W window) {
        for (int i = 0; i < panes.size(); i++) {
            if (panes.get(i).window().equals(window)) {
                return i;
            }
        }
        return addEmpty(window);
    }

    /** Adds a pane of {@code window} without contents (its first record comes); returns its index. */
    private int addEmpty(W window) {
        panes.add(new Pane<>(window, window, null));
        changed = true;
        return panes.size() - 1;
    }

    /**
     * Adds {@code window} to the key's panes, merging it with those it overlaps, and returns the
     * index of the pane it is now part of; -1 when it is late and overlaps none (then it is not
     * added). The grown pane keeps its records under the first overlapping pane's state window.
     */
    private int mergeIn(W window) throws Exception {
        overlapping.clear();
        for (Pane<W> pane : panes) {
            if (merging.mergeable(pane.window(), window)) {
                overlapping.add(pane);
            }
        }
        if (overlapping.isEmpty()) {
            if (isWindowLate(window)) {
                return -1;
            }
            return addEmpty(window);
        }
        W result = window;
        for (Pane<W> pane : overlapping) {
            result = merging.merge(result, pane.window());
        }
        Pane<W> first = overlapping.get(0);
        if (overlapping.size() == 1 && result.equals(first.window())) {
            overlapping.clear();
            return indexOf(first); // inside a window of the key already
        }
        WindowContents target = first.contents();
        for (int i = 1; i < overlapping.size(); i++) {
            Pane<W> absorbed = overlapping.get(i);
            if (absorbed.contents() != null) {
                target = absorb(first.stateWindow(), target, absorbed.stateWindow(), absorbed.contents());
            }
        }
        for (Pane<W> pane : overlapping) {
            panes.remove(indexOf(pane));
        }
        overlapping.clear();
        panes.add(new Pane<>(result, first.stateWindow(), target));
        changed = true;
        triggering.set(target == null ? WindowContents.EMPTY : target);
        trigger.onMerge(result, triggering);
        registerCleanupTimer(result);
        return panes.size() - 1;
    }

    /** The index of this very pane (records' equals would compare their contents too). */
    private int indexOf(Pane<W> pane) {
        for (int i = 0; i < panes.size(); i++) {
            if (panes.get(i) == pane) {
                return i;
            }
        }
        throw new IllegalStateException("a window pane of the key is not among its panes: " + pane.window());
    }

    /** Moves the records of {@code from} to those of {@code into}; returns the merged contents. */
    private WindowContents absorb(W into, WindowContents target, W from, WindowContents moved) throws Exception {
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

    /** Fires and purges the pane at {@code at} as the trigger said. */
    private void apply(TriggerResult result, int at, Collector<Object> out) throws Exception {
        Pane<W> pane = panes.get(at);
        WindowContents current = pane.contents();
        if (result.isFire() && current.elements() > 0) {
            emitting.fire(pane.window(), pane.stateWindow(), current, out);
        }
        if (result.isPurge()) {
            clearElements(pane);
            set(at, pane.with(null));
        } else if (result.isFire()) {
            set(at, pane.with(new WindowContents(current.accumulator(), current.elements(), 0)));
        }
    }

    /** Drops the records the pane keeps, if it keeps them. */
    private void clearElements(Pane<W> pane) {
        if (elements == null || pane.contents() == null) {
            return;
        }
        for (long i = 0; i < pane.contents().elements(); i++) {
            elements.remove(new WindowContents.Element<>(pane.stateWindow(), i));
        }
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

        void set(WindowContents current) {
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

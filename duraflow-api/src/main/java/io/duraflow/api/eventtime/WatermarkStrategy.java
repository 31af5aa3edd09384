package io.duraflow.api.eventtime;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a source or a flow gets event time: a {@link WatermarkGenerator} per split (or subtask), a
 * {@link TimestampAssigner}, and optionally idleness and alignment. Immutable; each {@code with}
 * returns a new strategy.
 *
 * <pre>{@code
 * WatermarkStrategy.<Bid>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *         .withTimestampAssigner((bid, previous) -> bid.dateTime())
 *         .withIdleness(Duration.ofMinutes(1))
 * }</pre>
 *
 * <p>Jobs are built from their code on every process, so a strategy is never serialized: its
 * {@link #description()} goes into the plan's fingerprint instead, and must change when its
 * meaning does (for a custom generator, give it a name).
 *
 * @param <T> the record type
 */
public final class WatermarkStrategy<T> {
    /** How often periodic watermarks are emitted unless {@code pipeline.auto-watermark-interval} says otherwise. */
    public static final Duration DEFAULT_PERIODIC_INTERVAL = Duration.ofMillis(200);

    /**
     * Watermark alignment: readers of the sources in {@code group} whose watermark is more than
     * {@code maxDrift} ahead of the group's lowest pause until it catches up; the group's lowest
     * watermark is updated every {@code updateInterval}.
     */
    public record Alignment(String group, Duration maxDrift, Duration updateInterval) {
        public Alignment {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("a watermark alignment group needs a non-blank name");
            }
            if (maxDrift == null || maxDrift.isNegative()) {
                throw new IllegalArgumentException("the maximum drift of alignment group " + group
                        + " must be zero or positive, got " + maxDrift);
            }
            if (updateInterval == null || updateInterval.isNegative() || updateInterval.isZero()) {
                throw new IllegalArgumentException("the update interval of alignment group " + group
                        + " must be positive, got " + updateInterval);
            }
        }
    }

    private final String generatorDescription;
    private final Supplier<? extends WatermarkGenerator<T>> generators;
    private final TimestampAssigner<T> assigner;
    private final Duration idleness;
    private final Alignment alignment;

    private WatermarkStrategy(String generatorDescription, Supplier<? extends WatermarkGenerator<T>> generators,
            TimestampAssigner<T> assigner, Duration idleness, Alignment alignment) {
        this.generatorDescription = generatorDescription;
        this.generators = generators;
        this.assigner = assigner;
        this.idleness = idleness;
        this.alignment = alignment;
    }

    /** Timestamps out of order by at most {@code maxOutOfOrderness} (see {@link BoundedOutOfOrdernessWatermarks}). */
    public static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(Duration maxOutOfOrderness) {
        new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrderness); // validates now, not on the task
        return new WatermarkStrategy<>("bounded(" + maxOutOfOrderness.toMillis() + "ms)",
                () -> new BoundedOutOfOrdernessWatermarks<>(maxOutOfOrderness), null, null, null);
    }

    /** Timestamps that never decrease: the watermark follows the highest one seen. */
    public static <T> WatermarkStrategy<T> forMonotonousTimestamps() {
        return new WatermarkStrategy<>("monotonous", () -> new BoundedOutOfOrdernessWatermarks<>(Duration.ZERO),
                null, null, null);
    }

    /**
     * Watermarks from a generator of your own, one instance per split or subtask; {@code name}
     * stands for it in the plan's fingerprint.
     */
    public static <T> WatermarkStrategy<T> forGenerator(String name, Supplier<? extends WatermarkGenerator<T>> generators) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a custom watermark generator needs a non-blank name");
        }
        return new WatermarkStrategy<>("generator(" + name + ")", Objects.requireNonNull(generators, "generators"),
                null, null, null);
    }

    /** Timestamps but no watermarks: event time does not progress (event-time timers never fire before the end). */
    public static <T> WatermarkStrategy<T> noWatermarks() {
        return new WatermarkStrategy<>("none", () -> new WatermarkGenerator<T>() {
            @Override
            public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {}

            @Override
            public void onPeriodicEmit(WatermarkOutput output) {}
        }, null, null, null);
    }

    /** Where timestamps come from; without one a record keeps the timestamp its source gave it. */
    public WatermarkStrategy<T> withTimestampAssigner(TimestampAssigner<T> timestampAssigner) {
        return new WatermarkStrategy<>(generatorDescription, generators,
                Objects.requireNonNull(timestampAssigner, "timestampAssigner"), idleness, alignment);
    }

    /**
     * A split (or subtask) without records for {@code timeout} of processing time is idle: it no
     * longer holds back the others' watermark until its next record.
     */
    public WatermarkStrategy<T> withIdleness(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the idleness timeout must be positive, got " + timeout);
        }
        return new WatermarkStrategy<>(generatorDescription, generators, assigner, timeout, alignment);
    }

    /** {@link #withAlignment(String, Duration, Duration)} with an update every second. */
    public WatermarkStrategy<T> withAlignment(String group, Duration maxDrift) {
        return withAlignment(group, maxDrift, Duration.ofSeconds(1));
    }

    /** Aligns the watermarks of the sources in {@code group} (see {@link Alignment}). */
    public WatermarkStrategy<T> withAlignment(String group, Duration maxDrift, Duration updateInterval) {
        return new WatermarkStrategy<>(generatorDescription, generators, assigner, idleness,
                new Alignment(group, maxDrift, updateInterval));
    }

    /** A new generator, for one split or subtask. */
    public WatermarkGenerator<T> createGenerator() {
        return generators.get();
    }

    /** The timestamp of {@code element}: the assigner's, else {@code recordTimestamp}. */
    public long timestampOf(T element, long recordTimestamp) {
        return assigner == null ? recordTimestamp : assigner.extractTimestamp(element, recordTimestamp);
    }

    public boolean hasTimestampAssigner() {
        return assigner != null;
    }

    public Optional<Duration> idleness() {
        return Optional.ofNullable(idleness);
    }

    public Optional<Alignment> alignment() {
        return Optional.ofNullable(alignment);
    }

    /** What the strategy does, for the plan's fingerprint and its description. */
    public String description() {
        StringBuilder text = new StringBuilder("watermarks(").append(generatorDescription);
        if (assigner != null) {
            text.append(",assigner");
        }
        if (idleness != null) {
            text.append(",idle=").append(idleness.toMillis()).append("ms");
        }
        if (alignment != null) {
            text.append(",align=").append(alignment.group()).append('/').append(alignment.maxDrift().toMillis())
                    .append("ms/").append(alignment.updateInterval().toMillis()).append("ms");
        }
        return text.append(')').toString();
    }

    @Override
    public String toString() {
        return description();
    }
}

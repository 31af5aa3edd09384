package io.duraflow.metrics;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the metric families of one scrape from plain values: each family is declared once with
 * its name, help, unit and label names, then given one sample per label-value tuple. A family
 * without samples is left out of the scrape. Names follow Prometheus' conventions: a counter's name
 * here has no {@code _total} (the exposition adds it), a name with a unit ends with it.
 *
 * <p>Not thread-safe: one instance per scrape.
 */
public final class Families {
    private final Map<String, Family<?>> families = new LinkedHashMap<>();

    /** A gauge: a value that goes up and down. */
    public Gauge gauge(String name, String help, Unit unit, String... labelNames) {
        return add(new Gauge(name, help, unit, labelNames));
    }

    /** A counter: a value that only grows (a restart of what counts it resets it to 0). */
    public Counter counter(String name, String help, Unit unit, String... labelNames) {
        return add(new Counter(name, help, unit, labelNames));
    }

    /** A histogram with fixed upper bounds, the last of them +Inf. */
    public Histogram histogram(String name, String help, Unit unit, String... labelNames) {
        return add(new Histogram(name, help, unit, labelNames));
    }

    private <F extends Family<?>> F add(F family) {
        if (families.putIfAbsent(family.name, family) != null) {
            throw new IllegalArgumentException("metric family " + family.name + " declared twice");
        }
        return family;
    }

    /** Every family that got at least one sample, in the order they were declared. */
    public MetricSnapshots build() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (Family<?> family : families.values()) {
            if (!family.isEmpty()) {
                snapshots.add(family.build());
            }
        }
        return new MetricSnapshots(snapshots);
    }

    /** A family and its samples so far. */
    public abstract static class Family<P> {
        final String name;
        final String help;
        final Unit unit;
        final String[] labelNames;
        final List<P> points = new ArrayList<>();

        Family(String name, String help, Unit unit, String[] labelNames) {
            this.name = Objects.requireNonNull(name, "name");
            this.help = Objects.requireNonNull(help, "help");
            this.unit = unit;
            this.labelNames = labelNames.clone();
        }

        Labels labels(String[] values) {
            if (values.length != labelNames.length) {
                throw new IllegalArgumentException(name + " has labels " + List.of(labelNames) + ", got "
                        + values.length + " values");
            }
            return Labels.of(labelNames, values);
        }

        boolean isEmpty() {
            return points.isEmpty();
        }

        abstract MetricSnapshot build();
    }

    public static final class Gauge extends Family<GaugeSnapshot.GaugeDataPointSnapshot> {
        Gauge(String name, String help, Unit unit, String[] labelNames) {
            super(name, help, unit, labelNames);
        }

        /** One sample, with the label values in the order of the label names. */
        public Gauge set(double value, String... labelValues) {
            points.add(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(labels(labelValues)).build());
            return this;
        }

        @Override
        MetricSnapshot build() {
            GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(name).help(help);
            if (unit != null) {
                builder.unit(unit);
            }
            points.forEach(builder::dataPoint);
            return builder.build();
        }
    }

    public static final class Counter extends Family<CounterSnapshot.CounterDataPointSnapshot> {
        Counter(String name, String help, Unit unit, String[] labelNames) {
            super(name, help, unit, labelNames);
        }

        /** One sample, with the label values in the order of the label names. */
        public Counter set(double value, String... labelValues) {
            points.add(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(labels(labelValues))
                    .build());
            return this;
        }

        @Override
        MetricSnapshot build() {
            CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(help);
            if (unit != null) {
                builder.unit(unit);
            }
            points.forEach(builder::dataPoint);
            return builder.build();
        }
    }

    public static final class Histogram extends Family<HistogramSnapshot.HistogramDataPointSnapshot> {
        Histogram(String name, String help, Unit unit, String[] labelNames) {
            super(name, help, unit, labelNames);
        }

        /**
         * One sample: {@code counts[i]} observations were at most {@code upperBounds[i]} and above the
         * bound before (not cumulative); the last bound is +Inf.
         */
        public Histogram set(double[] upperBounds, long[] counts, double sum, String... labelValues) {
            points.add(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(upperBounds, counts)).sum(sum)
                    .labels(labels(labelValues)).build());
            return this;
        }

        @Override
        MetricSnapshot build() {
            HistogramSnapshot.Builder builder = HistogramSnapshot.builder().name(name).help(help);
            if (unit != null) {
                builder.unit(unit);
            }
            points.forEach(builder::dataPoint);
            return builder.build();
        }
    }
}

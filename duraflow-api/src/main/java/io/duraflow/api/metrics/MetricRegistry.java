package io.duraflow.api.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * The metrics of one task: the {@link MetricGroup} the runtime gives the task's user code, and
 * {@link #sample} to read them all. A test of a reader, writer or function can hand one to its
 * code and read what it registered.
 *
 * <p>Not thread-safe: the task thread registers, updates and samples.
 */
public final class MetricRegistry implements MetricGroup {
    /** The labels every exported metric carries already. */
    public static final Set<String> TASK_LABELS = Set.of("taskmanager", "job_id", "job_name", "vertex_id", "vertex",
            "subtask");
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");
    /** Endings Prometheus keeps for what it derives from a metric (a counter's {@code _total} is added on export). */
    private static final List<String> RESERVED_ENDINGS = List.of("_total", "_created", "_bucket", "_info");

    /** What a name is within the task: its kind, help and label names. */
    private record Family(MetricSample.Kind kind, String help, List<String> labelNames) {}

    private record Key(String name, List<String> labelValues) {}

    /** A registered gauge, and whether its failure was reported already. */
    private static final class Gauge {
        final DoubleSupplier value;
        boolean failed;

        Gauge(DoubleSupplier value) {
            this.value = value;
        }
    }

    private final Map<String, Family> families = new HashMap<>();
    private final Map<Key, Object> metrics = new LinkedHashMap<>();
    private final BiConsumer<String, RuntimeException> onFirstGaugeFailure;
    private final Group root = new Group(List.of(), List.of());

    /** A registry that ignores failing gauges (they give no sample). */
    public MetricRegistry() {
        this((gauge, failure) -> {});
    }

    /**
     * @param onFirstGaugeFailure told of each gauge's first failure: the gauge (its name and labels)
     *        and what it threw
     */
    public MetricRegistry(BiConsumer<String, RuntimeException> onFirstGaugeFailure) {
        this.onFirstGaugeFailure = Objects.requireNonNull(onFirstGaugeFailure, "onFirstGaugeFailure");
    }

    @Override
    public Counter counter(String name, String help) {
        return root.counter(name, help);
    }

    @Override
    public void gauge(String name, String help, DoubleSupplier value) {
        root.gauge(name, help, value);
    }

    @Override
    public MetricGroup withLabel(String name, String value) {
        return root.withLabel(name, value);
    }

    /** Every metric's value as of now, in the order they were registered; gauges are called here. */
    public List<MetricSample> sample() {
        List<MetricSample> samples = new ArrayList<>(metrics.size());
        for (Map.Entry<Key, Object> entry : metrics.entrySet()) {
            Key key = entry.getKey();
            Family family = families.get(key.name());
            double value;
            if (entry.getValue() instanceof Counter counter) {
                value = counter.count();
            } else {
                Gauge gauge = (Gauge) entry.getValue();
                try {
                    value = gauge.value.getAsDouble();
                } catch (RuntimeException e) {
                    if (!gauge.failed) {
                        gauge.failed = true;
                        onFirstGaugeFailure.accept(describe(key, family), e);
                    }
                    continue;
                }
                if (Double.isNaN(value)) {
                    continue;
                }
            }
            samples.add(new MetricSample(key.name(), family.help(), family.kind(), family.labelNames(),
                    key.labelValues(), value));
        }
        return samples;
    }

    /** @throws IllegalArgumentException unless {@code name} is lower case letters, digits and underscores, from a letter */
    static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("metric name '" + name + "' is not valid: use lower case letters,"
                    + " digits and underscores, starting with a letter (e.g. records_skipped)");
        }
        for (String ending : RESERVED_ENDINGS) {
            if (name.endsWith(ending)) {
                throw new IllegalArgumentException("metric name '" + name + "' ends with " + ending + ", which"
                        + " Prometheus keeps for itself (a counter gets _total on export): leave it out");
            }
        }
    }

    /** @throws IllegalArgumentException unless a valid name that is not one of {@link #TASK_LABELS} */
    static void checkLabelName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("metric label name '" + name + "' is not valid: use lower case"
                    + " letters, digits and underscores, starting with a letter (e.g. partition)");
        }
        if (TASK_LABELS.contains(name)) {
            throw new IllegalArgumentException("metric label name '" + name + "' is taken: every metric carries the"
                    + " task's labels " + TASK_LABELS + " already");
        }
    }

    private Family family(String name, String help, MetricSample.Kind kind, List<String> labelNames) {
        checkName(name);
        Objects.requireNonNull(help, "help");
        Family wanted = new Family(kind, help, labelNames);
        Family known = families.putIfAbsent(name, wanted);
        if (known != null && !known.equals(wanted)) {
            throw new IllegalArgumentException("metric '" + name + "' is registered already as a "
                    + known.kind().name().toLowerCase() + " with labels " + known.labelNames() + " and help '"
                    + known.help() + "'; a name has one kind, help and set of labels in a task");
        }
        return wanted;
    }

    private static String describe(Key key, Family family) {
        StringBuilder text = new StringBuilder(key.name()).append('{');
        for (int i = 0; i < family.labelNames().size(); i++) {
            text.append(i == 0 ? "" : ",").append(family.labelNames().get(i)).append('=')
                    .append(key.labelValues().get(i));
        }
        return text.append('}').toString();
    }

    /** The registry's metrics with some labels. */
    private final class Group implements MetricGroup {
        private final List<String> labelNames;
        private final List<String> labelValues;

        Group(List<String> labelNames, List<String> labelValues) {
            this.labelNames = labelNames;
            this.labelValues = labelValues;
        }

        @Override
        public Counter counter(String name, String help) {
            family(name, help, MetricSample.Kind.COUNTER, labelNames);
            return (Counter) metrics.computeIfAbsent(new Key(name, labelValues), key -> new Counter());
        }

        @Override
        public void gauge(String name, String help, DoubleSupplier value) {
            Objects.requireNonNull(value, "value");
            family(name, help, MetricSample.Kind.GAUGE, labelNames);
            metrics.put(new Key(name, labelValues), new Gauge(value));
        }

        @Override
        public MetricGroup withLabel(String name, String value) {
            checkLabelName(name);
            Objects.requireNonNull(value, "label value");
            if (labelNames.contains(name)) {
                throw new IllegalArgumentException("metric label '" + name + "' is in this group already");
            }
            List<String> names = new ArrayList<>(labelNames);
            names.add(name);
            List<String> values = new ArrayList<>(labelValues);
            values.add(value);
            return new Group(List.copyOf(names), List.copyOf(values));
        }
    }
}

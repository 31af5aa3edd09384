package io.duraflow.api.metrics;

import java.util.List;

/**
 * One value of a metric as a task sampled it.
 *
 * @param name        the name it was registered with, without the prefix the export adds
 * @param labelNames  the names of its group's labels, in the order they were added
 * @param labelValues their values, in the same order
 */
public record MetricSample(String name, String help, Kind kind, List<String> labelNames, List<String> labelValues,
        double value) {
    public enum Kind {
        COUNTER,
        GAUGE
    }

    public MetricSample {
        labelNames = List.copyOf(labelNames);
        labelValues = List.copyOf(labelValues);
    }
}

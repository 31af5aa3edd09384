package io.duraflow.api.metrics;

import java.util.function.DoubleSupplier;

/**
 * Where user code registers its metrics: a source reader through its {@code SourceReaderContext},
 * a sink's writer and committer through the {@code SinkContext}, a function through its {@code
 * RuntimeContext}. A TaskManager exports them for each running streaming task on its Prometheus
 * endpoint as {@code duraflow_operator_<name>} (a counter with {@code _total} added), with the
 * task's labels ({@code taskmanager}, {@code job_id}, {@code job_name}, {@code vertex_id},
 * {@code vertex}, {@code subtask}) and the group's own ({@link #withLabel}), as of the task's last
 * sample (taken with every heartbeat to the JobManager).
 *
 * <p>Names and label names are lower case letters, digits and underscores, starting with a letter
 * ({@code kafka_source_lag_records}), not ending with {@code _total}, {@code _created}, {@code
 * _bucket} or {@code _info}, which Prometheus keeps for itself. A name has one kind, help text and set of label names within
 * a task.
 *
 * <p>Threads: register and update metrics on the task thread, the one that calls the reader,
 * writer, committer or function. The task calls the gauges on that thread too, when it samples, so
 * a gauge may read whatever its owner reads without synchronization.
 */
public interface MetricGroup {
    /**
     * The counter of this name with this group's labels, made on the first call: a second call
     * with the same name and labels returns the same counter.
     *
     * @throws IllegalArgumentException if the name is not a valid metric name, or is a gauge's, or
     *         has other help text or label names in this task
     */
    Counter counter(String name, String help);

    /**
     * Registers a gauge of this name with this group's labels, in place of one registered before
     * with the same (its owner was replaced, say); each sample calls {@code value} on the task thread. A value that is not a number ({@link Double#NaN}) gives no sample that time
     * (say, a lag that is not known yet); a gauge that throws gives no sample either, and its first
     * failure is logged.
     *
     * @throws IllegalArgumentException if the name is not a valid metric name, a counter's, or has
     *         other help text or label names in this task
     */
    void gauge(String name, String help, DoubleSupplier value);

    /**
     * A group whose metrics carry one more label, such as a Kafka partition's topic and number.
     *
     * @throws IllegalArgumentException if the name is not a valid label name, is one of the task's
     *         own labels, or this group has it already
     */
    MetricGroup withLabel(String name, String value);

    /**
     * A group that exports nothing: its counters count, but nobody reads them, and its gauges are
     * never called. What a context gives when the runtime around it has no metrics.
     */
    static MetricGroup discarding() {
        return new MetricGroup() {
            @Override
            public Counter counter(String name, String help) {
                MetricRegistry.checkName(name);
                return new Counter();
            }

            @Override
            public void gauge(String name, String help, DoubleSupplier value) {
                MetricRegistry.checkName(name);
            }

            @Override
            public MetricGroup withLabel(String name, String value) {
                MetricRegistry.checkLabelName(name);
                return this;
            }
        };
    }
}

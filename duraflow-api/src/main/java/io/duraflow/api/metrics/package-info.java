/**
 * Metrics of user code: a source reader, a sink's writer and committer, and a function register
 * counters and gauges in the {@link MetricGroup} their context gives them; each TaskManager
 * exports those of its running streaming tasks on its Prometheus endpoint. {@link
 * MetricRegistry} is the group the runtime gives a task, and what a test of user code can give it
 * to read the values.
 */
package io.duraflow.api.metrics;

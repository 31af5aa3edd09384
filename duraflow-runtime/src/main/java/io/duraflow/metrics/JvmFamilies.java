package io.duraflow.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The JVM's metrics on a Duraflow endpoint: the Prometheus client's JVM and process metrics
 * except its thread metrics, which find deadlocked threads and read every thread's state at each
 * scrape. Both are VM operations that stop every thread at a safepoint, the task threads too; on
 * a loaded machine reaching that safepoint takes long (every runnable thread must be scheduled to
 * get there): with them, MetricsOverheadBenchmark saw a median 12-17 % lower streaming throughput
 * with a scrape every second under load average 20-35, while a scrape cost the processes only
 * 5-9 ms CPU. Thread counts here come from counters the JVM keeps, which stop nothing.
 * The client's native-memory metrics are left out too (they run a diagnostic command).
 */
final class JvmFamilies {
    private JvmFamilies() {}

    static void register(PrometheusRegistry registry) {
        JvmMemoryMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        registry.register(() -> {
            Families families = new Families();
            families.gauge("jvm_threads_current", "Current thread count of a JVM", null)
                    .set(threads.getThreadCount());
            families.gauge("jvm_threads_daemon", "Daemon thread count of a JVM", null)
                    .set(threads.getDaemonThreadCount());
            families.gauge("jvm_threads_peak", "Peak thread count of a JVM", null).set(threads.getPeakThreadCount());
            families.counter("jvm_threads_started", "Started thread count of a JVM", null)
                    .set(threads.getTotalStartedThreadCount());
            return families.build();
        });
    }
}

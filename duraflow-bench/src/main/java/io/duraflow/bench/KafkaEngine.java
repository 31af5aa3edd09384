package io.duraflow.bench;

/**
 * One engine's side of {@link KafkaBenchmark}: the keyed count from topic to topic, exactly once,
 * parallelism 2, a checkpoint every second, heap state, run bounded to measure throughput or
 * unbounded to measure latency. One job at a time.
 */
interface KafkaEngine extends AutoCloseable {
    /** The engine's name in the figures, e.g. {@code flink 2.3.0}. */
    String name();

    /**
     * Runs the job over {@code input}'s records up to its end offsets at the start, writing to
     * {@code output} in transactions of ids starting {@code transactionalIdPrefix}; returns when it
     * has finished, every transaction committed.
     */
    KafkaRun runBounded(String jobName, String input, String output, String transactionalIdPrefix) throws Exception;

    /** Starts the job without an end; returns once its first checkpoint has completed (all tasks run). */
    void start(String jobName, String input, String output, String transactionalIdPrefix) throws Exception;

    /** Cancels the job {@link #start} started; returns its figures from its start. */
    KafkaRun cancel(String jobName) throws Exception;
}

package io.duraflow.config;

import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import java.time.Duration;

/**
 * Options for batch job recovery (after Flink's FLIP-383): a batch job whose JobManager fails
 * keeps the work that had finished. While the job runs, the JobManager records job events (vertex
 * initialized, execution finished, executions reset, split assignments, coordinator state) in a
 * job event log under the high-availability storage directory; TaskManagers keep the job's
 * finished partitions while the JobManager is away; the new leader waits for the previous
 * TaskManagers, replays the log and re-runs only what is missing.
 *
 * <pre>
 *   execution.batch.job-recovery.enabled            auto: on exactly when high-availability.type is not 'none'
 *   job-event.store.write-buffer.size               the log's writer flushes when this much is buffered ...
 *   job-event.store.write-buffer.flush-interval     ... or this long after the oldest unflushed event
 *   execution.batch.job-recovery.previous-worker.recovery.timeout
 *                                                   how long the new leader waits for the previous TaskManagers
 *   taskmanager.partition-retention.timeout         how long a TaskManager keeps the partitions of a job
 *                                                   whose JobManager it lost
 * </pre>
 */
public final class JobRecoveryOptions {
    /** Whether batch jobs record job events and recover from them; value of {@code execution.batch.job-recovery.enabled}. */
    public enum JobRecoveryMode {
        /** On when high availability is on ({@code high-availability.type} other than {@code none}), else off. */
        AUTO,
        /** Always record events; without high availability no JobManager ever reads them. */
        ON,
        /** Never record events; a JobManager failover restarts batch jobs from the beginning. */
        OFF;

        /** Whether job recovery is on in this mode, given whether high availability is on. */
        public boolean enabled(boolean highAvailability) {
            return this == ON || (this == AUTO && highAvailability);
        }
    }

    public static final ConfigOption<JobRecoveryMode> ENABLED = ConfigOption.key("execution.batch.job-recovery.enabled")
            .enumType(JobRecoveryMode.class)
            .defaultValue(JobRecoveryMode.AUTO)
            .description("Whether a batch job keeps its finished work when its JobManager fails: 'auto' is on exactly"
                    + " when high availability is on, 'on' and 'off' force it.");

    public static final ConfigOption<Duration> PREVIOUS_WORKER_RECOVERY_TIMEOUT =
            ConfigOption.key("execution.batch.job-recovery.previous-worker.recovery.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("How long a new leader waits for the task managers of its predecessor to report their"
                            + " partitions before it resumes a recovered batch job; it stops waiting as soon as every"
                            + " partition it needs is reported, and 0 does not wait.");

    public static final ConfigOption<MemorySize> WRITE_BUFFER_SIZE = ConfigOption.key("job-event.store.write-buffer.size")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(1))
            .validator(ConfigValidator.of(v -> v.bytes() > 0 && v.bytes() <= MemorySize.ofMebiBytes(64).bytes(),
                    "a memory size between 1 byte and 64 mb such as '1 mb'"))
            .description("Job events buffered in memory before the job event log writes them to storage;"
                    + " a smaller buffer writes more often.");

    public static final ConfigOption<Duration> WRITE_BUFFER_FLUSH_INTERVAL =
            ConfigOption.key("job-event.store.write-buffer.flush-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .validator(ConfigValidator.positiveDuration())
                    .description("Longest time a job event stays in the write buffer before it is written to storage,"
                            + " counted from the oldest unwritten event.");

    public static final ConfigOption<Duration> PARTITION_RETENTION_TIMEOUT =
            ConfigOption.key("taskmanager.partition-retention.timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("How long a task manager that lost the JobManager of a recoverable batch job keeps the"
                            + " job's finished partitions for a new leader; 0 deletes them at once.");

    private JobRecoveryOptions() {
    }

    /**
     * Whether batch job recovery is on for this configuration: {@link #ENABLED}, with {@code auto}
     * resolved against {@link HighAvailabilityOptions#TYPE}.
     */
    public static boolean isEnabled(Configuration config) {
        boolean highAvailability = config.get(HighAvailabilityOptions.TYPE) != HighAvailabilityType.NONE;
        return config.get(ENABLED).enabled(highAvailability);
    }
}

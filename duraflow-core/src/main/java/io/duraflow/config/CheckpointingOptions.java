package io.duraflow.config;

import java.time.Duration;

/**
 * Options for checkpoints of streaming jobs. Checkpointing is on for a job exactly when
 * {@link #INTERVAL} is set; then {@link #DIR} must be set too.
 *
 * <pre>
 *   execution.checkpointing.interval                      time between checkpoint triggers; unset = no checkpoints
 *   execution.checkpointing.timeout                       a checkpoint not complete by then is aborted (EXPIRED)
 *   execution.checkpointing.min-pause                     least time from one completion to the next trigger
 *   execution.checkpointing.max-concurrent-checkpoints    checkpoints in progress at once
 *   execution.checkpointing.tolerable-failed-checkpoints  failed checkpoints in a row a job survives
 *   execution.checkpointing.num-retained                  completed checkpoints kept
 *   execution.checkpointing.dir                           where checkpoint data goes (never the HA directory)
 *   execution.max-parallelism                             key groups of a job, fixed for its lifetime
 * </pre>
 */
public final class CheckpointingOptions {
    public static final ConfigOption<Duration> INTERVAL = ConfigOption.key("execution.checkpointing.interval")
            .durationType()
            .noDefaultValue()
            .validator(ConfigValidator.positiveDuration())
            .description("Time between the triggers of a streaming job's checkpoints; when unset, the job takes no"
                    + " checkpoints (and execution.checkpointing.dir is not needed).");

    public static final ConfigOption<Duration> TIMEOUT = ConfigOption.key("execution.checkpointing.timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .validator(ConfigValidator.positiveDuration())
            .description("A checkpoint that is not complete this long after its trigger is aborted as expired.");

    public static final ConfigOption<Duration> MIN_PAUSE = ConfigOption.key("execution.checkpointing.min-pause")
            .durationType()
            .defaultValue(Duration.ZERO)
            .validator(ConfigValidator.nonNegativeDuration())
            .description("Least time between the completion of one checkpoint and the trigger of the next, so that"
                    + " slow checkpoints leave the job time to process records.");

    public static final ConfigOption<Integer> MAX_CONCURRENT_CHECKPOINTS =
            ConfigOption.key("execution.checkpointing.max-concurrent-checkpoints")
                    .intType()
                    .defaultValue(1)
                    .validator(ConfigValidator.intAtLeast(1))
                    .description("Most checkpoints in progress at the same time; a trigger waits while this many are.");

    public static final ConfigOption<Integer> TOLERABLE_FAILED_CHECKPOINTS =
            ConfigOption.key("execution.checkpointing.tolerable-failed-checkpoints")
                    .intType()
                    .defaultValue(0)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Failed checkpoints in a row that a job tolerates; one more makes the job fail over to"
                            + " its latest completed checkpoint. Sources declining softly never count.");

    public static final ConfigOption<Duration> TOLERABLE_FAILED_CHECKPOINTS_TIMEOUT =
            ConfigOption.key("execution.checkpointing.tolerable-failed-checkpoints-timeout")
                    .durationType()
                    .noDefaultValue()
                    .validator(ConfigValidator.positiveDuration())
                    .description("Longest time a job may go without a completed checkpoint, soft declines included;"
                            + " after it the job fails over to its latest checkpoint and a new window starts. The"
                            + " window counts from the last completed checkpoint, else from the job's first start or"
                            + " the last failover it caused (recorded with the job's checkpoints, so it survives"
                            + " leader changes). After a restart (a task failure, a new leader) the job is failed"
                            + " over this way only once a checkpoint tried since its tasks run again failed, never"
                            + " the moment they run. Unset: no limit.");

    public static final ConfigOption<Duration> SOFT_DECLINE_RETRY_DELAY =
            ConfigOption.key("execution.checkpointing.soft-decline-retry-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(200))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("After a source declined a checkpoint softly (\"not now\"), the next periodic"
                            + " checkpoint comes this soon instead of a whole interval later (never sooner than the"
                            + " min-pause allows); while soft declines repeat, the delay doubles up to the interval,"
                            + " and a completed checkpoint makes it short again. 0 waits for the interval.");

    public static final ConfigOption<Integer> NUM_RETAINED = ConfigOption.key("execution.checkpointing.num-retained")
            .intType()
            .defaultValue(1)
            .validator(ConfigValidator.intAtLeast(1))
            .description("Completed checkpoints kept; older ones are deleted when a newer one completes.");

    public static final ConfigOption<String> DIR = ConfigOption.key("execution.checkpointing.dir")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.nonBlank())
            .description("Directory (a path or a file system URI) under which checkpoints are written, one"
                    + " directory per job; required when execution.checkpointing.interval is set.");

    public static final ConfigOption<String> SAVEPOINT_DIR = ConfigOption.key("execution.checkpointing.savepoint-dir")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.nonBlank())
            .description("Directory (a path or a file system URI) 'duraflow savepoint' and 'duraflow cancel"
                    + " --savepoint' write savepoints to when no directory is given; each savepoint goes to a new"
                    + " savepoint-<job id>-<checkpoint id>/ under it, never deleted by the job.");

    public static final ConfigOption<CheckpointRetention> RETENTION = ConfigOption.key(
            "execution.checkpointing.retention")
            .enumType(CheckpointRetention.class)
            .defaultValue(CheckpointRetention.DELETE_ON_CANCELLATION)
            .description("What happens to a job's checkpoint directory when the job ends: 'delete-on-cancellation'"
                    + " deletes it when the job finishes or is cancelled and keeps it when the job fails (to start"
                    + " again from its latest checkpoint); 'retain-on-cancellation' always keeps it.");

    public static final ConfigOption<Integer> MAX_PARALLELISM = ConfigOption.key("execution.max-parallelism")
            .intType()
            .defaultValue(128)
            .validator(ConfigValidator.intRange(1, 32768))
            .description("Number of key groups a streaming job's keyed state is split into, fixed for the job's"
                    + " lifetime (and kept in its checkpoints); the upper bound of a keyed operator's parallelism.");

    private CheckpointingOptions() {
    }

    /** Whether jobs run with this configuration take checkpoints: {@link #INTERVAL} is set. */
    public static boolean isEnabled(Configuration config) {
        return config.get(INTERVAL) != null;
    }

    /**
     * Checks that the checkpoint options fit together: with an interval, a directory is set.
     *
     * @throws IllegalConfigurationException naming the option to set
     */
    public static void validate(Configuration config) {
        if (isEnabled(config) && config.get(DIR) == null) {
            throw new IllegalConfigurationException(INTERVAL.key() + " is set but " + DIR.key()
                    + " is not: set " + DIR.key() + " to the directory checkpoints are written to (for example -D "
                    + DIR.key() + "=/data/checkpoints)");
        }
    }
}

package io.duraflow.config;

import java.time.Duration;

/** Options for how jobs run: parallelism, key groups, adaptive batch parallelism and restarts. */
public final class ExecutionOptions {
    public static final ConfigOption<Integer> PARALLELISM_DEFAULT = ConfigOption.key("parallelism.default")
            .intType()
            .defaultValue(2)
            .validator(ConfigValidator.intAtLeast(1))
            .description("Parallelism of operators for which the job does not set one.");

    public static final ConfigOption<RuntimeMode> RUNTIME_MODE = ConfigOption.key("execution.runtime-mode")
            .enumType(RuntimeMode.class)
            .defaultValue(RuntimeMode.AUTOMATIC)
            .description("How jobs run: 'streaming' (all tasks deployed together, pipelined exchanges,"
                    + " checkpoints), 'batch' (stage by stage over blocking exchanges; every source must be"
                    + " bounded) or 'automatic' (batch when every source is bounded and the job has no keyed"
                    + " process function, else streaming).");

    public static final ConfigOption<Duration> AUTO_WATERMARK_INTERVAL = ConfigOption.key("pipeline.auto-watermark-interval")
            .durationType()
            .defaultValue(Duration.ofMillis(200))
            .validator(ConfigValidator.positiveDuration())
            .description("How often, in processing time, sources and assignTimestampsAndWatermarks ask their"
                    + " watermark generators for a watermark (streaming jobs with event time).");

    public static final ConfigOption<Integer> BATCH_MAX_KEY_GROUPS = ConfigOption.key("execution.batch.max-key-groups")
            .intType()
            .defaultValue(128)
            .validator(ConfigValidator.intAtLeast(1))
            .description("Number of key groups that keyed data is hashed into,"
                    + " which is the upper bound of a vertex's parallelism.");

    public static final ConfigOption<Integer> ADAPTIVE_MIN_PARALLELISM =
            ConfigOption.key("execution.batch.adaptive.min-parallelism")
                    .intType()
                    .defaultValue(1)
                    .validator(ConfigValidator.intAtLeast(1))
                    .description("Smallest parallelism that adaptive batch execution chooses for a vertex.");

    public static final ConfigOption<Integer> ADAPTIVE_MAX_PARALLELISM =
            ConfigOption.key("execution.batch.adaptive.max-parallelism")
                    .intType()
                    .defaultValue(0)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Largest parallelism that adaptive batch execution chooses for a vertex;"
                            + " 0 means the value of parallelism.default.");

    public static final ConfigOption<MemorySize> ADAPTIVE_AVG_BYTES_PER_TASK =
            ConfigOption.key("execution.batch.adaptive.avg-bytes-per-task")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(64))
                    .validator(ConfigValidator.positiveMemory())
                    .description("Amount of input data that adaptive batch execution aims to give each task"
                            + " when it chooses a vertex's parallelism.");

    public static final ConfigOption<RestartStrategyType> RESTART_STRATEGY_TYPE =
            ConfigOption.key("restart-strategy.type")
                    .enumType(RestartStrategyType.class)
                    .defaultValue(RestartStrategyType.FIXED_DELAY)
                    .description("How a job restarts after a failure: 'fixed-delay' retries a limited number"
                            + " of times after a fixed delay, 'exponential-delay' retries after a growing delay"
                            + " that resets once the job runs stably, 'none' fails the job on the first failure.");

    public static final ConfigOption<Integer> FIXED_DELAY_ATTEMPTS =
            ConfigOption.key("restart-strategy.fixed-delay.attempts")
                    .intType()
                    .defaultValue(10)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Number of restarts the fixed-delay strategy attempts before the job fails.");

    public static final ConfigOption<Duration> FIXED_DELAY_DELAY =
            ConfigOption.key("restart-strategy.fixed-delay.delay")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .description("How long the fixed-delay strategy waits after a failure before it restarts the job.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_INITIAL_BACKOFF =
            ConfigOption.key("restart-strategy.exponential-delay.initial-backoff")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .description("Delay before the first restart of the exponential-delay strategy, and after a reset.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_MAX_BACKOFF =
            ConfigOption.key("restart-strategy.exponential-delay.max-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .description("Longest delay of the exponential-delay strategy.");

    public static final ConfigOption<Double> EXPONENTIAL_DELAY_MULTIPLIER =
            ConfigOption.key("restart-strategy.exponential-delay.backoff-multiplier")
                    .doubleType()
                    .defaultValue(2.0)
                    .validator(ConfigValidator.doubleAtLeast(1.0))
                    .description("Factor by which the exponential-delay strategy's delay grows with each failure.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_RESET_THRESHOLD =
            ConfigOption.key("restart-strategy.exponential-delay.reset-backoff-threshold")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .description("Time without failure after which the exponential-delay strategy starts again from"
                            + " its initial delay and attempt budget.");

    public static final ConfigOption<Double> EXPONENTIAL_DELAY_JITTER =
            ConfigOption.key("restart-strategy.exponential-delay.jitter-factor")
                    .doubleType()
                    .defaultValue(0.1)
                    .validator(ConfigValidator.doubleBetween(0.0, 1.0))
                    .description("Random share (plus or minus) added to each exponential-delay backoff, so that many"
                            + " jobs hit by one fault do not restart in lockstep.");

    public static final ConfigOption<Integer> EXPONENTIAL_DELAY_ATTEMPTS =
            ConfigOption.key("restart-strategy.exponential-delay.attempts-before-reset-backoff")
                    .intType()
                    .defaultValue(Integer.MAX_VALUE)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Restarts the exponential-delay strategy allows between two resets before the job"
                            + " fails.");

    private ExecutionOptions() {
    }
}

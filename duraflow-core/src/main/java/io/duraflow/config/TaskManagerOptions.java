package io.duraflow.config;

/** Options of task manager processes: RPC endpoint, slots, local disk and memory budgets. */
public final class TaskManagerOptions {
    public static final ConfigOption<String> RPC_ADDRESS = ConfigOption.key("taskmanager.rpc.address")
            .stringType()
            .defaultValue("127.0.0.1")
            .validator(ConfigValidator.nonBlank())
            .description("Host name or IP address where the task manager's RPC server listens"
                    + " and that it advertises to the job manager.");

    public static final ConfigOption<Integer> RPC_PORT = ConfigOption.key("taskmanager.rpc.port")
            .intType()
            .defaultValue(0)
            .validator(ConfigValidator.intRange(0, 65535))
            .description("Port of the task manager's RPC server; 0 means any free port.");

    public static final ConfigOption<Integer> SLOTS = ConfigOption.key("taskmanager.slots")
            .intType()
            .defaultValue(2)
            .validator(ConfigValidator.intAtLeast(1))
            .description("Number of task slots a task manager offers. A slot runs one batch task, or one subtask of"
                    + " every stage of a streaming job's slot sharing group.");

    public static final ConfigOption<String> DATA_DIR = ConfigOption.key("taskmanager.data-dir")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.nonBlank())
            .description("Directory for partition files and spilled state;"
                    + " when unset, a new directory under the system temp dir.");

    public static final ConfigOption<MemorySize> AGGREGATION_BUDGET =
            ConfigOption.key("taskmanager.memory.aggregation-budget")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(64))
                    .validator(ConfigValidator.positiveMemory())
                    .description("Memory for keyed aggregation and join state per task before it spills to disk.");

    public static final ConfigOption<MemorySize> PARTITION_WRITE_BUFFER =
            ConfigOption.key("taskmanager.partition.write-buffer")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(8))
                    .validator(ConfigValidator.positiveMemory())
                    .description("Size of the in-memory buffer a task fills before writing result partition data to disk.");

    public static final ConfigOption<java.time.Duration> PLAN_BUILD_TIMEOUT =
            ConfigOption.key("taskmanager.plan-build.timeout")
                    .durationType()
                    .defaultValue(java.time.Duration.ofSeconds(60))
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long a task manager lets a job's build() run (user code) before the"
                            + " deployments of that job fail with a timeout naming the job class.");

    /**
     * How long a TaskManager that lost its leader JobManager keeps the tasks it runs, so that a new
     * leader can adopt them instead of running them again (see {@code AdoptionPlanner} in
     * duraflow-runtime). Counted from the loss; tasks no new leader adopted by then are cancelled.
     * Batch tasks only for now: streaming tasks stop at the loss, as with 0.
     */
    public static final ConfigOption<java.time.Duration> LEADER_LOSS_TIMEOUT =
            ConfigOption.key("taskmanager.leader-loss.timeout")
                    .durationType()
                    .defaultValue(java.time.Duration.ofSeconds(60))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("How long a task manager that lost its leader job manager keeps running its tasks,"
                            + " batch and streaming (a split request waits for the new leader, checkpoint"
                            + " acknowledgements meanwhile are dropped), so that a new leader can adopt them instead"
                            + " of running them again or restarting the job from its latest checkpoint; after it the"
                            + " tasks not adopted are cancelled, and 0 cancels them at once (no adoption).");

    private TaskManagerOptions() {
    }
}

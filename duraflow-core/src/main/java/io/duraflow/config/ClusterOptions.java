package io.duraflow.config;

import java.time.Duration;

/** Options that every process of a cluster shares: working directory, RPC and heartbeats. */
public final class ClusterOptions {
    public static final ConfigOption<String> WORK_DIR = ConfigOption.key("cluster.work-dir")
            .stringType()
            .defaultValue(".duraflow")
            .validator(ConfigValidator.nonBlank())
            .description("Directory where a local cluster keeps its pid files, logs and state;"
                    + " a relative path is resolved against the current directory.");

    public static final ConfigOption<Duration> RPC_ASK_TIMEOUT = ConfigOption.key("rpc.ask-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .validator(ConfigValidator.positiveDuration())
            .description("How long an RPC call waits for its reply before it fails with a timeout.");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOption.key("heartbeat.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .validator(ConfigValidator.positiveDuration())
            .description("How often task managers and the job manager send each other heartbeats.");

    public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT = ConfigOption.key("heartbeat.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .validator(ConfigValidator.positiveDuration())
            .description("How long a process may go without a heartbeat before its peer considers it lost.");

    public static final ConfigOption<MemorySize> COLLECT_MAX_BYTES = ConfigOption.key("collect.max-bytes")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(64))
            .validator(ConfigValidator.positiveMemory())
            .description("Largest collected result a job may send back to the client.");

    private ClusterOptions() {
    }
}

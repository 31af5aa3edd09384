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

    /**
     * Upper bound of {@link #COLLECT_MAX_BYTES}: a collected result travels in one RPC message (at
     * most 256 MiB, with room left for the rest of the message), and batch job recovery keeps a
     * finished task's collected result in one file that a reader accepts up to this size.
     */
    public static final MemorySize COLLECT_MAX_BYTES_LIMIT = MemorySize.ofMebiBytes(128);

    public static final ConfigOption<MemorySize> COLLECT_MAX_BYTES = ConfigOption.key("collect.max-bytes")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(64))
            .validator(ConfigValidator.of(v -> v.bytes() > 0 && v.bytes() <= COLLECT_MAX_BYTES_LIMIT.bytes(),
                    "a memory size between 1 byte and 128 mb (the most one RPC message carries and batch job"
                            + " recovery stores); write larger results to a file sink"))
            .description("Largest collected result a job may send back to the client, at most 128 mb.");

    private ClusterOptions() {
    }
}

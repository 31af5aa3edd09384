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

    public static final ConfigOption<Integer> SUSPECT_PROBE_ATTEMPTS =
            ConfigOption.key("heartbeat.suspect-probe.attempts")
                    .intType()
                    .defaultValue(3)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("When a task manager may be gone (a connection to it broke, a call to it was"
                            + " refused), the job manager pings it at once and declares it lost, without waiting for"
                            + " heartbeat.timeout, if this many pings in a row are refused; a ping that is answered,"
                            + " or times out, keeps it. 0 turns this off: only heartbeats decide.");

    public static final ConfigOption<Duration> SUSPECT_PROBE_INTERVAL =
            ConfigOption.key("heartbeat.suspect-probe.interval")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("Time between a refused ping of a suspected task manager and the next.");

    public static final ConfigOption<Duration> SUSPECT_PROBE_TIMEOUT =
            ConfigOption.key("heartbeat.suspect-probe.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long a ping of a suspected task manager waits for its answer; no answer"
                            + " within it keeps the task manager (it may only be slow) and leaves it to heartbeats.");

    public static final ConfigOption<MemorySize> COLLECT_MAX_BYTES = ConfigOption.key("collect.max-bytes")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(64))
            .validator(ConfigValidator.positiveMemory())
            .description("Largest collected result a job may send back to the client.");

    private ClusterOptions() {
    }
}

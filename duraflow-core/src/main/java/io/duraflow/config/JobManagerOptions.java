package io.duraflow.config;

import java.time.Duration;

/** Options of the job manager process. */
public final class JobManagerOptions {
    public static final ConfigOption<String> RPC_ADDRESS = ConfigOption.key("jobmanager.rpc.address")
            .stringType()
            .defaultValue("127.0.0.1")
            .validator(ConfigValidator.nonBlank())
            .description("Host name or IP address where the job manager's RPC server listens"
                    + " and where task managers and clients reach it.");

    public static final ConfigOption<Integer> RPC_PORT = ConfigOption.key("jobmanager.rpc.port")
            .intType()
            .defaultValue(6123)
            .validator(ConfigValidator.intRange(0, 65535))
            .description("Port of the job manager's RPC server.");

    public static final ConfigOption<MemorySize> ARTIFACT_MAX_SIZE = ConfigOption.key("jobmanager.artifact.max-size")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(256))
            .description("The largest job jar the job manager accepts ('duraflow run app.jar'); it is stored in the"
                    + " high-availability storage and fetched by every task manager that runs the job.");

    public static final ConfigOption<Duration> USER_CODE_TIMEOUT = ConfigOption.key("jobmanager.user-code.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .validator(ConfigValidator.positiveDuration())
            .description("How long a job's own code may take on the job manager to build its plan (and to start"
                    + " its split enumerators) before its submission or recovery fails; it runs off the job"
                    + " manager's main thread, so a slow or hanging job never stalls the others.");

    public static final ConfigOption<Duration> ADOPTION_REPORT_TIMEOUT =
            ConfigOption.key("jobmanager.adoption.report-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .validator(ConfigValidator.nonNegativeDuration())
                    .description("How long a new leader waits for the task managers of a recovered streaming job to"
                            + " register and report the tasks they kept running (taskmanager.leader-loss.timeout)"
                            + " before it decides whether to adopt them; it decides at once when every subtask is"
                            + " reported. A job not wholly reported by then restarts from its latest checkpoint.");

    // How the job manager settles a suspicion that a task manager died; next to heartbeat.* by key.
    public static final ConfigOption<Integer> SUSPECT_PROBE_ATTEMPTS =
            ConfigOption.key("heartbeat.suspect-probe.attempts")
                    .intType()
                    .defaultValue(3)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("When a task manager may be gone (a connection to it broke, a call to it was"
                            + " refused), the job manager pings it at once and declares it lost, without waiting for"
                            + " heartbeat.timeout, if this many pings in a row are refused; a ping that is answered,"
                            + " or times out, keeps it. 0 turns this off: only heartbeats (and a deployment refused"
                            + " with UNAVAILABLE) decide.");

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

    private JobManagerOptions() {
    }
}

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

    public static final ConfigOption<Duration> USER_CODE_TIMEOUT = ConfigOption.key("jobmanager.user-code.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .validator(ConfigValidator.positiveDuration())
            .description("How long a job's own code may take on the job manager to build its plan (and to start"
                    + " its split enumerators) before its submission or recovery fails; it runs off the job"
                    + " manager's main thread, so a slow or hanging job never stalls the others.");

    private JobManagerOptions() {
    }
}

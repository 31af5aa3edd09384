package io.duraflow.config;

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

    private JobManagerOptions() {
    }
}

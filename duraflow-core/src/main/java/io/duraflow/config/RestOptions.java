package io.duraflow.config;

/**
 * Options of the REST API and web UI that every JobManager serves (the leader answers, standbys
 * send clients to it). Loopback by default: a JobManager is reachable from other hosts only when
 * {@code rest.address} says so, and then {@code rest.auth.token} should be set.
 */
public final class RestOptions {
    public static final ConfigOption<String> ADDRESS = ConfigOption.key("rest.address")
            .stringType()
            .defaultValue("127.0.0.1")
            .validator(ConfigValidator.nonBlank())
            .description("Host name or IP address where the job manager's REST API and web UI listen, and under"
                    + " which the leader advertises them; loopback by default, so other hosts cannot reach them"
                    + " (0.0.0.0 listens on every interface: set rest.auth.token then).");

    public static final ConfigOption<Integer> PORT = ConfigOption.key("rest.port")
            .intType()
            .defaultValue(8081)
            .validator(ConfigValidator.intRange(-1, 65535))
            .description("Port of the REST API and web UI (http://<rest.address>:<port>/); 0 picks a free port"
                    + " (local clusters do), -1 turns them off.");

    public static final ConfigOption<String> AUTH_TOKEN = ConfigOption.key("rest.auth.token")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.of(t -> t.length() >= 8 && t.chars().allMatch(c -> c > 32 && c < 127),
                    "at least 8 printable characters without spaces"))
            .description("When set, every request to the REST API (reads and actions alike) must carry"
                    + " 'Authorization: Bearer <token>'; a missing or wrong token gets 401 and changes nothing."
                    + " The web UI asks for it. Never shown by the API's configuration view.");

    private RestOptions() {
    }
}

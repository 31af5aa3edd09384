package io.duraflow.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Options of the Prometheus endpoint every JobManager and TaskManager can serve. Off unless a
 * port is given: several JobManagers and TaskManagers of one machine (a local cluster, tests)
 * would fight over any fixed default port, and an endpoint nobody asked for is a port open for
 * nothing. A range ({@code 9249-9260}) gives each process of one machine the first free port of it,
 * and each process logs the address it bound (and writes it to a file_sd target file if asked).
 */
public final class MetricOptions {
    /** A port, or a range {@code FROM-TO} of ports. */
    private static final Pattern PORTS = Pattern.compile("(\\d{1,5})(?:-(\\d{1,5}))?");

    /** The value that turns the endpoint off (the default). */
    public static final String OFF = "off";

    public static final ConfigOption<String> PROMETHEUS_PORT = ConfigOption.key("metrics.prometheus.port")
            .stringType()
            .defaultValue(OFF)
            .validator(ConfigValidator.of(MetricOptions::isValidPortSpec,
                    "'off', a port such as 9249, a range such as 9249-9260 (the first free one is taken), or 0"
                            + " (any free port)"))
            .description("Port of the process's Prometheus endpoint (http://address:port/metrics): 'off' (the"
                    + " default: no endpoint), a port, a range FROM-TO of which the first free port is taken (several"
                    + " processes on one machine), or 0 for any free port. A single port that is in use is an error and"
                    + " the process exits. The address bound is logged at start-up ('Prometheus metrics of this"
                    + " jobmanager at http://...'); for a local cluster, give 'duraflow local start' a range such as"
                    + " 9249-9260 with -D.");

    public static final ConfigOption<String> PROMETHEUS_ADDRESS = ConfigOption.key("metrics.prometheus.address")
            .stringType()
            .defaultValue("127.0.0.1")
            .validator(ConfigValidator.nonBlank())
            .description("Host name or IP address the Prometheus endpoint listens on; loopback by default, so"
                    + " only this machine can scrape it unless set (0.0.0.0: every interface).");

    public static final ConfigOption<String> PROMETHEUS_TARGETS_FILE =
            ConfigOption.key("metrics.prometheus.targets-file")
                    .stringType()
                    .noDefaultValue()
                    .validator(ConfigValidator.nonBlank())
                    .description("A file the process writes its endpoint to once it listens, as a Prometheus"
                            + " file_sd target list (JSON, with a label duraflow_role), so Prometheus finds an"
                            + " endpoint whose port was chosen at start-up through file_sd_configs.");

    private MetricOptions() {
    }

    /**
     * The ports {@code spec} allows, in the order to try them: {@code {}} for 'off', {@code {0}}
     * for any free port, one port, or every port of a range.
     *
     * @throws IllegalArgumentException if {@code spec} is not valid
     */
    public static int[] ports(String spec) {
        String trimmed = spec.trim();
        if (trimmed.equalsIgnoreCase(OFF)) {
            return new int[0];
        }
        Matcher m = PORTS.matcher(trimmed);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a port or a range of ports: '" + spec + "'");
        }
        int from = Integer.parseInt(m.group(1));
        int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
        if (from > 65535 || to > 65535 || to < from || (from == 0 && to != 0)) {
            throw new IllegalArgumentException("not a port or a range of ports: '" + spec + "'");
        }
        int[] ports = new int[to - from + 1];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = from + i;
        }
        return ports;
    }

    private static boolean isValidPortSpec(String spec) {
        try {
            ports(spec);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}

package io.duraflow.metrics;

import io.duraflow.config.Configuration;
import io.duraflow.config.MetricOptions;
import io.duraflow.rpc.RpcServers;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's Prometheus endpoint, {@code http://address:port/metrics}: the process's own
 * collector (read at scrape time, nothing counted on the way) and the JVM's metrics ({@link
 * JvmFamilies}: none that stops the JVM at a safepoint), served by the
 * Prometheus client's HTTP server on one daemon thread, so scrapes are answered one at a time and
 * never on a thread the process works on.
 *
 * <p>Ports ({@link MetricOptions#PROMETHEUS_PORT}): 'off' starts nothing; a range takes its first
 * free port; 0 takes any free port; a single port that is in use is an error that names the option.
 */
public final class MetricsEndpoint implements AutoCloseable {
    static {
        io.duraflow.util.JdkHttpServers.configure();
    }

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final HTTPServer server;
    private final String host;

    private MetricsEndpoint(HTTPServer server, String host) {
        this.server = server;
        this.host = host;
    }

    /**
     * Starts the endpoint of a {@code role} ("jobmanager", "taskmanager") that serves {@code
     * collector}, or returns null when the option is 'off'.
     *
     * @throws RpcServers.BindFailedException if no port of the option could be bound; the message
     *     is one line that names the option
     */
    public static MetricsEndpoint start(Configuration config, String role, MultiCollector collector) {
        int[] ports = MetricOptions.ports(config.get(MetricOptions.PROMETHEUS_PORT));
        if (ports.length == 0) {
            return null;
        }
        String host = config.get(MetricOptions.PROMETHEUS_ADDRESS);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(collector);
        JvmFamilies.register(registry);
        MetricsEndpoint endpoint = new MetricsEndpoint(bind(host, ports, registry, role), host);
        LOG.info("Prometheus metrics of this {} at {}", role, endpoint.url());
        String targetsFile = config.get(MetricOptions.PROMETHEUS_TARGETS_FILE);
        if (targetsFile != null) {
            try {
                writeTargets(Path.of(targetsFile), endpoint.hostAndPort(), role);
            } catch (IOException e) {
                endpoint.close();
                throw new IllegalStateException("cannot write " + MetricOptions.PROMETHEUS_TARGETS_FILE.key() + " "
                        + targetsFile + ": " + e, e);
            }
        }
        return endpoint;
    }

    private static HTTPServer bind(String host, int[] ports, PrometheusRegistry registry, String role) {
        String key = MetricOptions.PROMETHEUS_PORT.key();
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (IOException e) {
            throw new RpcServers.BindFailedException("cannot listen on " + host + " (" + MetricOptions
                    .PROMETHEUS_ADDRESS.key() + "): " + e.getMessage(), e);
        }
        for (int port : ports) {
            ExecutorService scrapes = Executors.newSingleThreadExecutor(r -> {
                Thread thread = new Thread(r, "metrics-http-" + role);
                thread.setDaemon(true);
                return thread;
            });
            try {
                return HTTPServer.builder().inetAddress(address).port(port).registry(registry)
                        .executorService(scrapes).buildAndStart();
            } catch (IOException e) {
                scrapes.shutdownNow();
                boolean inUse = e instanceof BindException
                        || String.valueOf(e.getMessage()).contains("Address already in use");
                if (!inUse) {
                    throw new RpcServers.BindFailedException("cannot listen on " + host + ":" + port + " (" + key
                            + "): " + e.getMessage(), e);
                }
                if (ports.length == 1) {
                    throw new RpcServers.BindFailedException(key + ": port " + port + " on " + host + " is already in"
                            + " use; choose another, a range such as 9249-9260 (the first free port is taken) or 0"
                            + " (any free port)", e);
                }
            }
        }
        throw new RpcServers.BindFailedException(key + ": every port of " + ports[0] + "-" + ports[ports.length - 1]
                + " on " + host + " is in use; choose a wider range or 0 (any free port)", null);
    }

    /**
     * A Prometheus file_sd target list of this one endpoint, written whole (a temporary file moved
     * into place), so Prometheus never reads half of it.
     */
    private static void writeTargets(Path file, String hostAndPort, String role) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve(file.getFileName() + ".tmp");
        Files.writeString(tmp, "[{\"targets\": [\"" + hostAndPort + "\"], \"labels\": {\"duraflow_role\": \""
                + role + "\"}}]\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The port bound. */
    public int port() {
        return server.getPort();
    }

    /** {@code host:port}, as a Prometheus target. */
    public String hostAndPort() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
    }

    /** Where to scrape: {@code http://host:port/metrics}. */
    public String url() {
        return "http://" + hostAndPort() + "/metrics";
    }

    @Override
    public void close() {
        server.close();
    }
}

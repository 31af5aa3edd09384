package io.duraflow.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.MetricOptions;
import io.duraflow.rpc.RpcServers;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsEndpointTest {
    @TempDir
    Path tempDir;

    /** A collector whose one gauge counts the scrapes. */
    private static MultiCollector scrapeCounting(AtomicInteger scrapes) {
        return () -> {
            Families families = new Families();
            families.gauge("duraflow_test_scrapes", "Scrapes so far", null).set(scrapes.incrementAndGet());
            return families.build();
        };
    }

    private static Configuration port(String port) {
        return new Configuration().set(MetricOptions.PROMETHEUS_PORT, port);
    }

    @Test
    void servesTheCollectorAndTheJvmOnLoopback() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(port("0"), "jobmanager", scrapeCounting(scrapes))) {
            assertThat(endpoint.url()).isEqualTo("http://127.0.0.1:" + endpoint.port() + "/metrics");

            Map<String, PrometheusText.Family> first = PrometheusText.parse(PrometheusText.scrape(endpoint.url()));
            Map<String, PrometheusText.Family> second = PrometheusText.parse(PrometheusText.scrape(endpoint.url()));

            assertThat(first.get("duraflow_test_scrapes").sum()).isEqualTo(1);
            assertThat(second.get("duraflow_test_scrapes").sum()).isEqualTo(2);
            assertThat(first).containsKeys("jvm_memory_used_bytes", "jvm_threads_current", "jvm_gc_collection_seconds",
                    "process_cpu_seconds_total");
        }
    }

    @Test
    void offStartsNothing() {
        assertThat(MetricsEndpoint.start(new Configuration(), "taskmanager", scrapeCounting(new AtomicInteger())))
                .isNull();
    }

    @Test
    void aPortInUseIsAOneLineErrorThatNamesTheOption() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            assertThatThrownBy(() -> MetricsEndpoint.start(port(Integer.toString(port)), "taskmanager",
                    scrapeCounting(new AtomicInteger())))
                    .isInstanceOf(RpcServers.BindFailedException.class)
                    .hasMessage("metrics.prometheus.port: port " + port + " on 127.0.0.1 is already in use; choose"
                            + " another, a range such as 9249-9260 (the first free port is taken) or 0 (any free"
                            + " port)");
        }
    }

    @Test
    void aRangeTakesAFreePortOfIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            String range = port + "-" + Math.min(65535, port + 20);
            try (MetricsEndpoint endpoint = MetricsEndpoint.start(port(range), "taskmanager",
                    scrapeCounting(new AtomicInteger()))) {
                assertThat(endpoint.port()).isGreaterThan(port).isLessThanOrEqualTo(port + 20);
            }
        }
    }

    @Test
    void writesAFileSdTargetList() throws Exception {
        Path targets = tempDir.resolve("metrics").resolve("jobmanager.json");
        Configuration config = port("0").set(MetricOptions.PROMETHEUS_TARGETS_FILE, targets.toString());
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(config, "jobmanager", scrapeCounting(new AtomicInteger()))) {
            assertThat(Files.readString(targets)).isEqualTo("[{\"targets\": [\"127.0.0.1:" + endpoint.port()
                    + "\"], \"labels\": {\"duraflow_role\": \"jobmanager\"}}]\n");
        }
    }
}

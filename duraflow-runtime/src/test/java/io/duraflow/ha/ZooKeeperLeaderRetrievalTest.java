package io.duraflow.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** A client looking for the leader while ZooKeeper is down says so within the connection timeout. */
class ZooKeeperLeaderRetrievalTest {
    @Test
    void anUnreachableZooKeeperFailsWithinTheConnectionTimeout() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.ZOOKEEPER_QUORUM, "127.0.0.1:" + port)
                .set(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT, Duration.ofSeconds(10))
                .set(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT, Duration.ofSeconds(1));
        long start = System.nanoTime();
        CuratorFramework client = ZooKeeperClients.start(config);
        ZooKeeperLeaderRetrieval retrieval = new ZooKeeperLeaderRetrieval(client);
        try {
            assertThatThrownBy(() -> retrieval.awaitLeader(Duration.ofSeconds(60)))
                    .isInstanceOf(ZooKeeperClients.UnreachableException.class)
                    .hasMessageStartingWith("ZooKeeper at 127.0.0.1:" + port + " is unreachable (no connection within 1 s)")
                    .hasMessageContaining("high-availability.zookeeper.quorum");
        } finally {
            // Closing must not retry against the missing server either (it took ~20 s).
            retrieval.close();
            client.close();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aConnectedClientWaitsOutItsTimeoutWhenNoLeaderIsThere() throws Exception {
        try (ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension(
                java.nio.file.Files.createTempDirectory("zk-retrieval"))) {
            Configuration config = new Configuration()
                    .set(HighAvailabilityOptions.ZOOKEEPER_QUORUM, zooKeeper.connectString())
                    .set(HighAvailabilityOptions.CLUSTER_ID, "no-leader")
                    .set(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT, Duration.ofMillis(500));
            CuratorFramework client = ZooKeeperClients.start(config);
            try (ZooKeeperLeaderRetrieval retrieval = new ZooKeeperLeaderRetrieval(client)) {
                assertThat(retrieval.awaitLeader(Duration.ofSeconds(2))).isNull();
            } finally {
                client.close();
            }
        }
    }
}

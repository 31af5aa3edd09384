package io.duraflow.ha;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.awaitility.Awaitility;

/** A real ZooKeeper server on a free loopback port, run on a thread of the test JVM. */
public final class ZooKeeperServerExtension implements AutoCloseable {
    private final ZooKeeperServerMain server = new ZooKeeperServerMain() {
    };
    private final Thread thread;
    private final int port;

    public ZooKeeperServerExtension(Path dataDir) throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Files.createDirectories(dataDir);
        Properties properties = new Properties();
        properties.setProperty("tickTime", "200");
        properties.setProperty("dataDir", dataDir.toString());
        properties.setProperty("clientPort", Integer.toString(port));
        properties.setProperty("clientPortAddress", "127.0.0.1");
        properties.setProperty("admin.enableServer", "false");
        QuorumPeerConfig quorum = new QuorumPeerConfig();
        quorum.parseProperties(properties);
        ServerConfig config = new ServerConfig();
        config.readFrom(quorum);
        thread = new Thread(() -> {
            try {
                server.runFromConfig(config);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "zookeeper-server");
        thread.setDaemon(true);
        thread.start();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(this::accepts);
    }

    private boolean accepts() {
        try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}

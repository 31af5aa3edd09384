package io.duraflow.cli;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A ZooKeeper server process ({@code duraflow zookeeper}); several clusters may share one. */
final class ZooKeeperServer implements AutoCloseable {
    /** The server of {@link #shared()}, or null before the first call. */
    private static ZooKeeperServer shared;
    private final Process process;
    private final int port;

    /**
     * The server the test classes of this JVM share (each cluster has its own ZooKeeper root),
     * started by the first that asks, with its data and log under
     * {@code target/shared-zookeeper/jvm-<pid>/}; it runs until the JVM exits (see {@link
     * ChildJvm}). Not to be closed: a test that stops ZooKeeper starts a server of its own.
     */
    static synchronized ZooKeeperServer shared() throws IOException {
        if (shared == null || !shared.isAlive()) {
            shared = start(Path.of("target", "shared-zookeeper", "jvm-" + ProcessHandle.current().pid())
                    .toAbsolutePath());
        }
        return shared;
    }

    /** Whether {@code process} is the server of {@link #shared()}, which outlives the test classes on purpose. */
    static synchronized boolean isShared(ProcessHandle process) {
        return shared != null && shared.process.pid() == process.pid();
    }

    private ZooKeeperServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts a server with its data in {@code dir/zookeeper} and log in {@code dir/log/zookeeper.log}. */
    static ZooKeeperServer start(Path dir) throws IOException {
        int port = HaCluster.freePort();
        Process process = ChildJvm.start(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                List.of("zookeeper", "--port", Integer.toString(port), "--data-dir",
                        dir.resolve("zookeeper").toString()), Files.createDirectories(dir),
                dir.resolve("log/zookeeper.log"));
        try {
            await("ZooKeeper listening on 127.0.0.1:" + port).atMost(HaCluster.STARTUP_TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .failFast("the ZooKeeper server exited", () -> !process.isAlive())
                    .until(() -> accepts(port));
        } catch (RuntimeException | Error e) {
            System.err.println("ZooKeeper in " + dir + " failed to start:\n" + TestCluster.logTails(dir, 40));
            process.destroyForcibly();
            throw e;
        }
        return new ZooKeeperServer(process, port);
    }

    String quorum() {
        return "127.0.0.1:" + port;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

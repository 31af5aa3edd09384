package io.duraflow.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the integration tests' child JVMs load, run in one JVM that then exits by itself, so that
 * {@code -XX:ArchiveClassesAtExit} can write it down ({@link ChildJvmClassPath}): a ZooKeeper
 * server, two JobManagers and a TaskManager with ZooKeeper high availability, each through its
 * {@code duraflow} command as the child processes start them, and the commands {@code run} of a
 * batch job and of a checkpointed streaming job with the exactly-once file sink, {@code list}
 * and {@code checkpoints}. Argument: a directory for the cluster's files.
 */
final class ChildJvmRecording {
    private ChildJvmRecording() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).toAbsolutePath();
        int zooKeeperPort = freePort();
        background("zookeeper", "zookeeper", "--port", Integer.toString(zooKeeperPort), "--data-dir",
                dir.resolve("zookeeper").toString());
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!accepts(zooKeeperPort)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the ZooKeeper server did not listen within 60 s");
            }
            Thread.sleep(20);
        }
        List<String> ha = List.of("-D", "high-availability.type=zookeeper", "-D",
                "high-availability.zookeeper.quorum=127.0.0.1:" + zooKeeperPort, "-D",
                "high-availability.storage-dir=" + dir.resolve("ha"), "-D", "jobmanager.rpc.port=0", "-D",
                "heartbeat.interval=500ms");
        background("jobmanager", with(List.of("jobmanager", "--address-file", dir.resolve("jm.address").toString()),
                ha));
        // A standby, which loads the classes a leader needs while it stands by (most tests start two).
        background("standby", with(List.of("jobmanager"), ha));
        background("taskmanager", with(List.of("taskmanager", "-D", "taskmanager.data-dir=" + dir.resolve("tm")), ha));

        int exit = Duraflow.execute(with(List.of("run", "wordcount", "--param", "words=20000", "--param",
                "distinct=100", "--show", "3"), ha));
        exit |= Duraflow.execute(with(List.of("run", "streaming-keyed-sum", "--parallelism", "1", "--param", "records=20000", "--param",
                "keys=100", "--param", "rate=20000", "--param", "output=" + dir.resolve("output"), "-D",
                "execution.runtime-mode=streaming", "-D", "execution.checkpointing.interval=200ms", "-D",
                "execution.checkpointing.dir=" + dir.resolve("checkpoints")), ha));
        exit |= Duraflow.execute(with(List.of("list"), ha));
        System.exit(exit == 0 ? 0 : 1);
    }

    private static String[] with(List<String> command, List<String> options) {
        List<String> all = new ArrayList<>(command);
        all.addAll(options);
        return all.toArray(String[]::new);
    }

    /** Runs a server command on a daemon thread; {@link System#exit} ends it. */
    private static void background(String name, String... args) {
        Thread thread = new Thread(() -> Duraflow.execute(args), "recording-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
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

package io.duraflow.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The ZooKeeper server of a local high-availability cluster: a process of its own ({@code duraflow
 * zookeeper}) on a free loopback port, its data in {@code zookeeper/} of the work directory.
 */
final class LocalZooKeeper {
    private LocalZooKeeper() {}

    /**
     * Starts the server, waits until it accepts connections and adds to {@code clusterSettings}
     * what makes the cluster's processes use it: high availability through it, with its storage
     * in {@code ha/} of the work directory unless the settings name one.
     */
    static void start(ProcessLauncher launcher, StartupWait startup, long deadline, LocalCluster.PrintSink out,
            Map<String, String> clusterSettings) throws IOException, InterruptedException {
        Path workDir = launcher.workDir();
        int zkPort = ProcessLauncher.freePort();
        Process zk = launcher.spawn("zookeeper", "-Xmx256m", List.of("zookeeper", "--port", Integer.toString(zkPort),
                "--data-dir", workDir.resolve("zookeeper").toString()), Map.of());
        startup.awaitPort(zk, "zookeeper", zkPort, deadline);
        out.line("ZooKeeper listening on 127.0.0.1:" + zkPort + " (log: " + launcher.log("zookeeper") + ")");
        clusterSettings.put("high-availability.type", "zookeeper");
        clusterSettings.put("high-availability.zookeeper.quorum", "127.0.0.1:" + zkPort);
        clusterSettings.putIfAbsent("high-availability.storage-dir", workDir.resolve("ha").toString());
    }
}

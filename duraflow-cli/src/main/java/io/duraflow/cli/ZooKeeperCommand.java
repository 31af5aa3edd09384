package io.duraflow.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs a single ZooKeeper server in the foreground: the coordination service of a local
 * high-availability cluster ('duraflow local start --jobmanagers 2' starts it as its own
 * process). Real clusters use their own ZooKeeper ensemble.
 */
@Command(name = "zookeeper", description = "Runs a standalone ZooKeeper server (for local HA clusters).")
final class ZooKeeperCommand implements Callable<Integer>, Duraflow.ServerCommand {
    @Option(names = "--port", required = true, description = "Client port on 127.0.0.1")
    int port;

    @Option(names = "--data-dir", required = true, description = "Snapshot and log directory")
    Path dataDir;

    @Option(names = "--tick-time", defaultValue = "500", description = "ZooKeeper tick in ms (default: 500)")
    int tickTimeMs;

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(dataDir);
        Properties properties = new Properties();
        properties.setProperty("tickTime", Integer.toString(tickTimeMs));
        properties.setProperty("dataDir", dataDir.toAbsolutePath().toString());
        properties.setProperty("clientPort", Integer.toString(port));
        properties.setProperty("clientPortAddress", "127.0.0.1");
        properties.setProperty("minSessionTimeout", Integer.toString(2 * tickTimeMs));
        properties.setProperty("maxSessionTimeout", "120000");
        properties.setProperty("admin.enableServer", "false");
        properties.setProperty("maxClientCnxns", "0");
        QuorumPeerConfig quorumConfig = new QuorumPeerConfig();
        quorumConfig.parseProperties(properties);
        ServerConfig config = new ServerConfig();
        config.readFrom(quorumConfig);
        new ZooKeeperServerMain().runFromConfig(config);
        return 0;
    }
}

package io.duraflow.taskmanager;

import io.duraflow.config.Configuration;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.rpc.RpcServers;
import io.grpc.Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A TaskManager process: its gRPC server and its {@link TaskExecutor}. */
public final class TaskManagerRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRunner.class);

    private final TaskExecutor executor;
    private final Server server;
    private final Path dataDirectory;
    private final boolean ownsDataDirectory;

    private final HighAvailabilityServices ha;

    private TaskManagerRunner(TaskExecutor executor, Server server, Path dataDirectory, boolean ownsDataDirectory,
            HighAvailabilityServices ha) {
        this.ha = ha;
        this.executor = executor;
        this.server = server;
        this.dataDirectory = dataDirectory;
        this.ownsDataDirectory = ownsDataDirectory;
    }

    /**
     * Starts the server and registers with the leading JobManager: found through ZooKeeper with
     * high availability, else at {@code jobManagerAddress} (host:port).
     */
    public static TaskManagerRunner start(Configuration config, String jobManagerAddress, long registrationTimeoutMs)
            throws Exception {
        HighAvailabilityServices ha = HighAvailabilityServices.create(config);
        String configured = config.get(TaskManagerOptions.DATA_DIR);
        boolean owns = configured == null || configured.isBlank();
        Path dataDirectory = owns ? Files.createTempDirectory("duraflow-tm-")
                : Files.createDirectories(Path.of(configured));
        TaskExecutor executor = new TaskExecutor(config, ha.createLeaderRetrieval(jobManagerAddress), dataDirectory);
        String host = config.get(TaskManagerOptions.RPC_ADDRESS);
        Server server;
        try {
            server = RpcServers.start(host, config.get(TaskManagerOptions.RPC_PORT), TaskManagerOptions.RPC_PORT.key(),
                    new TaskManagerService(executor));
        } catch (RuntimeException e) {
            executor.close();
            ha.close();
            throw e;
        }
        String address = host + ":" + server.getPort();
        TaskManagerRunner runner = new TaskManagerRunner(executor, server, dataDirectory, owns, ha);
        try {
            executor.start(address, registrationTimeoutMs);
        } catch (Exception e) {
            runner.close();
            throw e;
        }
        LOG.info("TaskManager {} listening on {}, data in {}", executor.taskManagerId(), address, dataDirectory);
        return runner;
    }

    public String taskManagerId() {
        return executor.taskManagerId();
    }

    public int port() {
        return server.getPort();
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() {
        executor.close();
        server.shutdownNow();
        try {
            server.awaitTermination(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ha.close();
        if (ownsDataDirectory) {
            PartitionStore.deleteTree(dataDirectory);
        }
    }
}

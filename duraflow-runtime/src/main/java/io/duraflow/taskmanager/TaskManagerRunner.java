package io.duraflow.taskmanager;

import io.duraflow.config.Configuration;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.metrics.MetricsEndpoint;
import io.duraflow.rpc.RpcServers;
import io.grpc.Server;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A TaskManager process: its gRPC server and its {@link TaskExecutor}. */
public final class TaskManagerRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRunner.class);

    private final TaskExecutor executor;
    private final Server server;
    private final InstanceDirectory dataDirectory;

    private final HighAvailabilityServices ha;
    /** The Prometheus endpoint, or null (metrics.prometheus.port off). */
    private final MetricsEndpoint metrics;

    private TaskManagerRunner(TaskExecutor executor, Server server, InstanceDirectory dataDirectory,
            HighAvailabilityServices ha, MetricsEndpoint metrics) {
        this.ha = ha;
        this.metrics = metrics;
        this.executor = executor;
        this.server = server;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts the server and registers with the leading JobManager: found through ZooKeeper with
     * high availability, else at {@code jobManagerAddress} (host:port).
     */
    public static TaskManagerRunner start(Configuration config, String jobManagerAddress, long registrationTimeoutMs)
            throws Exception {
        return start(config, jobManagerAddress, registrationTimeoutMs, services -> services);
    }

    /**
     * As {@link #start(Configuration, String, long)} for a TaskManager inside another program (an
     * in-process cluster): a mail that throws on its main thread goes to {@code fatalError}
     * instead of ending the process, which would end the program too.
     */
    public static TaskManagerRunner startEmbedded(Configuration config, String jobManagerAddress,
            long registrationTimeoutMs, java.util.function.Consumer<Throwable> fatalError) throws Exception {
        return start(config, jobManagerAddress, registrationTimeoutMs, services -> {
            if (services.mailbox() instanceof io.duraflow.mailbox.ThreadMailbox mailbox) {
                mailbox.onUncaughtException(fatalError);
            }
            return services;
        });
    }

    /** As {@link #start(Configuration, String, long)}, with the executor's services adjusted (tests). */
    static TaskManagerRunner start(Configuration config, String jobManagerAddress, long registrationTimeoutMs,
            java.util.function.UnaryOperator<TaskExecutorServices> adjust) throws Exception {
        String configured = config.get(TaskManagerOptions.DATA_DIR);
        // Claimed before anything is written: what a SIGKILLed predecessor left is swept here.
        InstanceDirectory dataDirectory = configured == null || configured.isBlank()
                ? InstanceDirectory.createTemporary(Path.of(System.getProperty("java.io.tmpdir")))
                : InstanceDirectory.claim(Path.of(configured));
        HighAvailabilityServices ha;
        TaskExecutor executor;
        try {
            ha = HighAvailabilityServices.create(config);
            executor = new TaskExecutor(config, ha.createLeaderRetrieval(jobManagerAddress), dataDirectory.path(),
                    adjust.apply(TaskExecutorServices.production(TaskExecutor.EXIT_ON_FATAL_ERROR,
                            config.get(io.duraflow.config.ClusterOptions.HEARTBEAT_TIMEOUT).toMillis())));
        } catch (Exception e) {
            dataDirectory.close();
            throw e;
        }
        String host = config.get(TaskManagerOptions.RPC_ADDRESS);
        Server server;
        try {
            server = RpcServers.start(host, config.get(TaskManagerOptions.RPC_PORT), TaskManagerOptions.RPC_PORT.key(),
                    new TaskManagerService(executor), executor.network().service());
        } catch (RuntimeException e) {
            executor.close();
            ha.close();
            dataDirectory.close();
            throw e;
        }
        String address = host + ":" + server.getPort();
        MetricsEndpoint metrics;
        try {
            metrics = MetricsEndpoint.start(config, "taskmanager", new TaskManagerMetrics(executor::metricsSnapshot,
                    executor.network(), executor.streaming().fileMerging()));
        } catch (RuntimeException e) {
            executor.close();
            server.shutdownNow();
            ha.close();
            dataDirectory.close();
            throw e;
        }
        TaskManagerRunner runner = new TaskManagerRunner(executor, server, dataDirectory, ha, metrics);
        try {
            executor.start(address, registrationTimeoutMs);
        } catch (Exception e) {
            runner.close();
            throw e;
        }
        LOG.info("TaskManager {} listening on {}, data in {}", executor.taskManagerId(), address,
                dataDirectory.path());
        return runner;
    }

    public String taskManagerId() {
        return executor.taskManagerId();
    }

    public int port() {
        return server.getPort();
    }

    /** The Prometheus endpoint's port, or -1 when it is off. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
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
        if (metrics != null) {
            metrics.close();
        }
        ha.close();
        dataDirectory.close();
    }
}

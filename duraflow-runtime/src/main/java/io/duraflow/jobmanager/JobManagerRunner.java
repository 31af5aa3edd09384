package io.duraflow.jobmanager;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.rpc.RpcServers;
import io.grpc.Server;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A JobManager process: main thread, resource manager, dispatcher and the gRPC server. */
public final class JobManagerRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRunner.class);

    private final String sessionId = UUID.randomUUID().toString();
    private final MainThread mainThread = new MainThread();
    private final ResourceManager resourceManager;
    private final Dispatcher dispatcher;
    private final long heartbeatIntervalMs;
    private final long heartbeatTimeoutMs;
    private final Server server;
    private final String address;

    private JobManagerRunner(Configuration config) {
        this.heartbeatIntervalMs = config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
        this.heartbeatTimeoutMs = config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
        this.resourceManager = new ResourceManager(sessionId, mainThread, System::currentTimeMillis,
                heartbeatTimeoutMs, config.get(ClusterOptions.RPC_ASK_TIMEOUT).toMillis());
        this.dispatcher = new Dispatcher(config, sessionId, resourceManager, mainThread, System::currentTimeMillis);
        String host = config.get(JobManagerOptions.RPC_ADDRESS);
        try {
            this.server = RpcServers.start(host, config.get(JobManagerOptions.RPC_PORT), JobManagerOptions.RPC_PORT.key(),
                    new JobManagerServices.TaskManagerFacing(this), new JobManagerServices.ClientFacing(this));
        } catch (RuntimeException e) {
            mainThread.close();
            throw e;
        }
        this.address = host + ":" + server.getPort();
        mainThread.scheduleAtFixedRate(resourceManager::checkHeartbeats, heartbeatIntervalMs);
        LOG.info("JobManager listening on {} (session {})", address, sessionId);
    }

    public static JobManagerRunner start(Configuration config) {
        return new JobManagerRunner(config);
    }

    public String address() {
        return address;
    }

    public int port() {
        return server.getPort();
    }

    String sessionId() {
        return sessionId;
    }

    MainThread mainThread() {
        return mainThread;
    }

    ResourceManager resourceManager() {
        return resourceManager;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    long heartbeatTimeoutMs() {
        return heartbeatTimeoutMs;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mainThread.execute(resourceManager::close);
        mainThread.close();
    }
}

package io.duraflow.jobmanager;

import io.duraflow.config.Configuration;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.rest.Leadership;
import io.duraflow.rest.RestBackend;
import io.duraflow.rest.RestServer;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's REST API and web UI ({@link RestServer}): answered by the same
 * {@code DispatcherGateway} implementation as gRPC clients, and told by the {@link JobManagerRunner}
 * where this JobManager stands. A standby follows the leader's published information, so it can
 * send REST clients to the leader's REST URL.
 */
final class JobManagerRest implements RestBackend, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRest.class);

    private final DispatcherGatewayGrpc.AsyncService gateway;
    private final Configuration config;
    private final RestServer server;
    private LeaderRetrieval retrieval;
    /** Written by the runner's main thread, read by REST threads. */
    private volatile Leadership state = new Leadership.Standby("", "");
    /** The leader as last published, or null; written by the retrieval's thread. */
    private volatile LeaderInfo leader;

    private JobManagerRest(DispatcherGatewayGrpc.AsyncService gateway, Configuration config) {
        this.gateway = gateway;
        this.config = config;
        this.server = RestServer.start(config, this);
    }

    /** Starts the REST server ({@code rest.port} -1: none, and {@link #url} is ""). */
    static JobManagerRest start(DispatcherGatewayGrpc.AsyncService gateway, Configuration config) {
        return new JobManagerRest(gateway, config);
    }

    /** With high availability, follows the published leader (for standbys' redirects). */
    void followLeader(HighAvailabilityServices ha) {
        if (server == null || !ha.isZooKeeper()) {
            return;
        }
        try {
            retrieval = ha.createLeaderRetrieval("");
            retrieval.start(info -> leader = info);
        } catch (Exception e) {
            LOG.warn("Cannot follow the leader for REST redirects; standbys answer 503 instead: {}", e.toString());
        }
    }

    /** {@code http://host:port}, or "" without a REST server. */
    String url() {
        return server == null ? "" : server.url();
    }

    void takingOver() {
        state = new Leadership.TakingOver();
    }

    void leading() {
        state = new Leadership.Leading();
    }

    void standingBy() {
        state = new Leadership.Standby("", "");
    }

    @Override
    public DispatcherGatewayGrpc.AsyncService gateway() {
        return gateway;
    }

    @Override
    public Leadership leadership() {
        Leadership current = state;
        if (current instanceof Leadership.Standby) {
            LeaderInfo known = leader;
            // Our own published information can linger briefly after we stood down: never redirect to ourselves.
            if (known != null && !known.restUrl().equals(url())) {
                return new Leadership.Standby(known.restUrl(), known.address());
            }
        }
        return current;
    }

    @Override
    public Configuration configuration() {
        return config;
    }

    @Override
    public void close() {
        if (retrieval != null) {
            try {
                retrieval.close();
            } catch (Exception e) {
                LOG.debug("Closing the leader retrieval: {}", e.toString());
            }
        }
        if (server != null) {
            server.close();
        }
    }
}

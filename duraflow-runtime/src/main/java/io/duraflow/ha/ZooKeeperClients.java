package io.duraflow.ha;

import io.duraflow.config.Configuration;
import io.duraflow.config.Durations;
import io.duraflow.config.HighAvailabilityOptions;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Curator clients namespaced by {@code high-availability.zookeeper.root} and
 * {@code high-availability.cluster-id}: the znodes of a cluster are
 * <pre>
 *   /root/cluster-id/leader/latch/...   Curator LeaderLatch participants (ephemeral sequential)
 *   /root/cluster-id/leader/info        the leader's address and session id (ephemeral, JSON)
 * </pre>
 */
public final class ZooKeeperClients {
    private ZooKeeperClients() {}

    /**
     * No ZooKeeper server of the quorum could be reached within the connection timeout; the
     * message is one line that says which quorum and what to do.
     */
    public static final class UnreachableException extends RuntimeException {
        public UnreachableException(String quorum, Duration waited) {
            super("ZooKeeper at " + quorum + " is unreachable (no connection within " + Durations.format(waited)
                    + "); start it (or wait until it is back) and try again, or point "
                    + HighAvailabilityOptions.ZOOKEEPER_QUORUM.key() + " at a running one (wait longer with -D "
                    + HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT.key() + "=10s)");
        }
    }

    public static CuratorFramework start(Configuration config) {
        String root = config.get(HighAvailabilityOptions.ZOOKEEPER_ROOT);
        String namespace = (root + "/" + config.get(HighAvailabilityOptions.CLUSTER_ID)).replaceAll("^/+", "")
                .replaceAll("/+", "/");
        int sessionTimeoutMs = (int) config.get(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT).toMillis();
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(config.get(HighAvailabilityOptions.ZOOKEEPER_QUORUM))
                .sessionTimeoutMs(sessionTimeoutMs)
                // A connection attempt longer than the session is pointless (and Curator warns about it).
                .connectionTimeoutMs(Math.min(sessionTimeoutMs,
                        (int) config.get(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT).toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 2_000))
                .namespace(namespace)
                .build();
        client.start();
        return client;
    }
}

package io.duraflow.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Follows the leader's ephemeral info znode with a Curator cache. */
final class ZooKeeperLeaderRetrieval implements LeaderRetrieval {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderRetrieval.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CuratorFramework client;
    private final Object lock = new Object();
    private CuratorCache cache;
    private LeaderInfo current;

    ZooKeeperLeaderRetrieval(CuratorFramework client) {
        this.client = client;
    }

    @Override
    public void start(Consumer<LeaderInfo> listener) {
        cache = CuratorCache.build(client, ZooKeeperLeaderElection.INFO_PATH, CuratorCache.Options.SINGLE_NODE_CACHE);
        cache.listenable().addListener((type, oldData, data) -> update(data, listener));
        // After its session expired (a long GC pause, SIGSTOP) the cache can miss a leader change
        // made meanwhile: read the node again whenever the connection comes back.
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reread(listener);
            }
        });
        cache.start();
    }

    private void reread(Consumer<LeaderInfo> listener) {
        try {
            client.getData().inBackground((c, event) -> {
                if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                    update(new ChildData(event.getPath(), event.getStat(), event.getData()), listener);
                } else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                    update(null, listener);
                }
            }).forPath(ZooKeeperLeaderElection.INFO_PATH);
        } catch (Exception e) {
            LOG.warn("Cannot read the leader information after reconnecting to ZooKeeper: {}", e.toString());
        }
    }

    private void update(ChildData data, Consumer<LeaderInfo> listener) {
        LeaderInfo leader = null;
        if (data != null && data.getData() != null) {
            try {
                JsonNode node = JSON.readTree(data.getData());
                leader = new LeaderInfo(node.get("address").asText(), node.get("sessionId").asText(),
                        node.path("restUrl").asText(""));
            } catch (Exception e) {
                LOG.warn("Unreadable leader information in ZooKeeper: {}", e.toString());
            }
        }
        synchronized (lock) {
            if (java.util.Objects.equals(leader, current)) {
                return;
            }
            current = leader;
            lock.notifyAll();
        }
        LOG.info("Leader is now {}", leader);
        listener.accept(leader);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The leader cannot be known while ZooKeeper is unreachable, and a client (the command
     * line) should say so rather than wait out {@code timeout}: once the client has had no
     * connection for the connection timeout ({@code high-availability.zookeeper.connection-timeout})
     * during this call, it fails. Processes that follow the leader for good use {@link #start}.
     *
     * @throws ZooKeeperClients.UnreachableException when ZooKeeper stays unreachable that long
     */
    @Override
    public LeaderInfo awaitLeader(Duration timeout) throws InterruptedException {
        if (cache == null) {
            start(leader -> {});
        }
        long now = System.nanoTime();
        long deadline = now + timeout.toNanos();
        long connectionTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(client.getZookeeperClient().getConnectionTimeoutMs());
        long disconnectedSince = now;
        synchronized (lock) {
            while (current == null) {
                now = System.nanoTime();
                long left = deadline - now;
                if (left <= 0) {
                    return null;
                }
                if (client.getZookeeperClient().isConnected()) {
                    disconnectedSince = now;
                } else if (now - disconnectedSince >= connectionTimeoutNanos) {
                    throw new ZooKeeperClients.UnreachableException(
                            client.getZookeeperClient().getCurrentConnectionString(),
                            Duration.ofNanos(connectionTimeoutNanos));
                }
                TimeUnit.NANOSECONDS.timedWait(lock, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return current;
        }
    }

    /**
     * Closes the cache. Closing it removes its watch in ZooKeeper, which without a connection
     * retries for about 20 s (each try waits the connection timeout): then it is closed on a
     * daemon thread instead, which ends at the latest when the client is closed, so that a
     * command line that could not reach ZooKeeper exits at once.
     */
    @Override
    public void close() {
        if (cache == null) {
            return;
        }
        if (client.getZookeeperClient().isConnected()) {
            cache.close();
        } else {
            Thread closer = new Thread(cache::close, "close-leader-cache");
            closer.setDaemon(true);
            closer.start();
        }
    }
}

package io.duraflow.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
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
        cache.start();
    }

    private void update(ChildData data, Consumer<LeaderInfo> listener) {
        LeaderInfo leader = null;
        if (data != null && data.getData() != null) {
            try {
                JsonNode node = JSON.readTree(data.getData());
                leader = new LeaderInfo(node.get("address").asText(), node.get("sessionId").asText());
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

    @Override
    public LeaderInfo awaitLeader(Duration timeout) throws InterruptedException {
        if (cache == null) {
            start(leader -> {});
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (current == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return current;
        }
    }

    @Override
    public void close() {
        if (cache != null) {
            cache.close();
        }
    }
}

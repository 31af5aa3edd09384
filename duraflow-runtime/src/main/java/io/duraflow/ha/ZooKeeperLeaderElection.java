package io.duraflow.ha;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election with a Curator {@link LeaderLatch}. Each grant gets a fresh session id. The
 * latch treats a suspended connection as lost leadership, and {@link #stillLeads} asks
 * ZooKeeper whether our latch node still exists, so a JobManager paused past its session
 * timeout finds out before it writes anything.
 */
final class ZooKeeperLeaderElection implements LeaderElection {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderElection.class);
    static final String LATCH_PATH = "/leader/latch";
    static final String INFO_PATH = "/leader/info";

    private final CuratorFramework client;
    private final String participantId;
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "leader-election");
        t.setDaemon(true);
        return t;
    });
    private LeaderContender contender;
    private LeaderLatch latch;
    private volatile String sessionId;

    ZooKeeperLeaderElection(CuratorFramework client, String participantId) {
        this.client = client;
        this.participantId = participantId;
    }

    @Override
    public synchronized void start(LeaderContender contender) throws Exception {
        this.contender = contender;
        join();
    }

    private void join() throws Exception {
        latch = new LeaderLatch(client, LATCH_PATH, participantId);
        LeaderLatch mine = latch;
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                String session = UUID.randomUUID().toString();
                sessionId = session;
                LOG.info("Leadership granted to {} (session {})", participantId, session);
                contender.grantLeadership(session);
            }

            @Override
            public void notLeader() {
                LOG.warn("Leadership of {} revoked (session {})", participantId, sessionId);
                sessionId = null;
                contender.revokeLeadership();
            }
        }, callbacks);
        latch.start();
        LOG.info("Joined leader election as {} (latch {})", participantId, mine);
    }

    @Override
    public void publish(String sessionId, String address) throws Exception {
        if (!stillLeads(sessionId)) {
            throw new IllegalStateException("session " + sessionId + " does not lead any more; not publishing");
        }
        byte[] info = ("{\"address\":\"" + address + "\",\"sessionId\":\"" + sessionId + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        String ours = latch.getOurPath();
        Stat stat = client.checkExists().forPath(INFO_PATH);
        if (stat == null) {
            client.transaction().forOperations(client.transactionOp().check().forPath(ours),
                    client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(INFO_PATH, info));
        } else {
            client.transaction().forOperations(client.transactionOp().check().forPath(ours),
                    client.transactionOp().setData().forPath(INFO_PATH, info));
        }
        LOG.info("Published leader {} at {}", sessionId, address);
    }

    @Override
    public boolean stillLeads(String sessionId) {
        if (sessionId == null || !sessionId.equals(this.sessionId)) {
            return false;
        }
        LeaderLatch current = latch;
        try {
            String ours = current.getOurPath();
            // A round trip to ZooKeeper: fails if our session expired, misses the node if it was deleted.
            return ours != null && current.hasLeadership() && client.checkExists().forPath(ours) != null
                    && sessionId.equals(this.sessionId);
        } catch (Exception e) {
            LOG.warn("Cannot confirm leadership with ZooKeeper: {}", e.toString());
            return false;
        }
    }

    @Override
    public synchronized void giveUpAndRejoin() throws Exception {
        LOG.warn("Giving up leadership (session {})", sessionId);
        sessionId = null;
        LeaderLatch old = latch;
        old.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
        join();
    }

    @Override
    public synchronized void close() throws Exception {
        sessionId = null;
        if (latch != null) {
            latch.close(LeaderLatch.CloseMode.SILENT);
        }
        callbacks.shutdownNow();
    }
}

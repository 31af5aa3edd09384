package io.duraflow.ha;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
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
    private static final int PUBLISH_ATTEMPTS = 3;

    private final CuratorFramework client;
    private final String participantId;
    private final ScheduledExecutorService callbacks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leader-election");
        t.setDaemon(true);
        return t;
    });
    private LeaderContender contender;
    /** Replaced under this object's lock; read without it by {@link #stillLeads}. */
    private volatile LeaderLatch latch;
    private volatile String sessionId;
    private boolean closed;

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

    /**
     * Writes the leader information as an ephemeral node of our own ZooKeeper session, in one
     * transaction with a check that our latch node still exists. An existing node is deleted and
     * created again rather than overwritten: an ephemeral node stays owned by the session that
     * created it, so overwriting a previous leader's node would make our information vanish when
     * that leader's session ends (it may live on after it gave up or while it shuts down).
     */
    @Override
    public synchronized void publish(String sessionId, String address, String restUrl) throws Exception {
        // restUrl is a later addition: readers that do not know it ignore it.
        byte[] info = ("{\"address\":\"" + address + "\",\"sessionId\":\"" + sessionId + "\",\"restUrl\":\""
                + restUrl + "\"}").getBytes(StandardCharsets.UTF_8);
        for (int attempt = 1; ; attempt++) {
            if (!stillLeads(sessionId)) {
                throw new IllegalStateException("session " + sessionId + " does not lead any more; not publishing");
            }
            try {
                replaceInfo(latch.getOurPath(), info);
                LOG.info("Published leader {} at {}", sessionId, address);
                return;
            } catch (KeeperException e) {
                // The node appeared or vanished between our look and the transaction (a previous
                // leader's session ending), or our latch node is gone, which stillLeads will see.
                boolean raced = e.code() == KeeperException.Code.NODEEXISTS || e.code() == KeeperException.Code.NONODE;
                if (!raced || attempt == PUBLISH_ATTEMPTS) {
                    throw e;
                }
                LOG.info("Leader information changed while publishing session {}; trying again: {}", sessionId,
                        e.toString());
            }
        }
    }

    private void replaceInfo(String ourLatchPath, byte[] info) throws Exception {
        CuratorOp checkOurs = client.transactionOp().check().forPath(ourLatchPath);
        CuratorOp create = client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(INFO_PATH, info);
        if (client.checkExists().forPath(INFO_PATH) == null) {
            client.transaction().forOperations(checkOurs, create);
        } else {
            client.transaction().forOperations(checkOurs, client.transactionOp().delete().forPath(INFO_PATH), create);
        }
    }

    /**
     * Deletes the leader information if our ZooKeeper session created it, so that nobody follows
     * a leadership we are ending. Best effort: a later leader replaces the node anyway, and it
     * vanishes with our session. Only while connected, so that closing never waits for
     * ZooKeeper. Another leader could replace the node between our look and the delete only
     * while two contenders both believe they lead, which the latch already allows briefly.
     */
    private void withdrawInfo() {
        try {
            if (!client.getZookeeperClient().isConnected()) {
                return;
            }
            long ourZooKeeperSession = client.getZookeeperClient().getZooKeeper().getSessionId();
            Stat stat = client.checkExists().forPath(INFO_PATH);
            if (stat != null && stat.getEphemeralOwner() == ourZooKeeperSession) {
                client.delete().withVersion(stat.getVersion()).forPath(INFO_PATH);
                LOG.info("Withdrew the published leader information");
            }
        } catch (Exception e) {
            LOG.warn("Cannot withdraw the published leader information: {}", e.toString());
        }
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

    /**
     * Does nothing unless {@code sessionId} is the current leadership: a slow failure path of an
     * earlier leadership must not end the one this process holds now.
     */
    @Override
    public synchronized void giveUpAndRejoin(String sessionId, long rejoinDelayMs) throws Exception {
        if (sessionId == null || !sessionId.equals(this.sessionId)) {
            LOG.info("Not giving up leadership for session {}: the current session is {}", sessionId, this.sessionId);
            return;
        }
        LOG.warn("Giving up leadership (session {})", sessionId);
        this.sessionId = null;
        withdrawInfo();
        latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
        if (rejoinDelayMs <= 0) {
            join();
            return;
        }
        LOG.info("Rejoining the leader election in {} ms", rejoinDelayMs);
        callbacks.schedule(this::rejoin, rejoinDelayMs, TimeUnit.MILLISECONDS);
    }

    private synchronized void rejoin() {
        if (closed) {
            return;
        }
        try {
            join();
        } catch (Exception e) {
            LOG.error("Cannot rejoin the leader election; exiting so that a supervisor restarts this JobManager", e);
            Runtime.getRuntime().halt(70);
        }
    }

    @Override
    public synchronized void close() throws Exception {
        sessionId = null;
        if (latch != null && !closed) {
            closed = true;
            withdrawInfo();
            latch.close(LeaderLatch.CloseMode.SILENT);
        }
        callbacks.shutdownNow();
    }
}

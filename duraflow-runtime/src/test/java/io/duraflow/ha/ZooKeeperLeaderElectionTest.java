package io.duraflow.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leader election, publication and retrieval against a real ZooKeeper server. */
class ZooKeeperLeaderElectionTest {
    @TempDir
    static Path tempDir;

    static ZooKeeperServerExtension zooKeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = new ZooKeeperServerExtension(tempDir.resolve("zk"));
    }

    @AfterAll
    static void stopZooKeeper() {
        zooKeeper.close();
    }

    /** Records what the election told it. */
    static final class Contender implements LeaderContender {
        final AtomicReference<String> session = new AtomicReference<>();
        final CopyOnWriteArrayList<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void grantLeadership(String sessionId) {
            session.set(sessionId);
            events.add("granted " + sessionId);
        }

        @Override
        public void revokeLeadership() {
            session.set(null);
            events.add("revoked");
        }
    }

    private static Configuration config(String clusterId) {
        return new Configuration()
                .set(HighAvailabilityOptions.ZOOKEEPER_QUORUM, zooKeeper.connectString())
                .set(HighAvailabilityOptions.CLUSTER_ID, clusterId)
                .set(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT, Duration.ofSeconds(2))
                .set(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT, Duration.ofSeconds(2));
    }

    @Test
    void oneLeaderAtATimeAndTheStandbyTakesOverWithANewSession() throws Exception {
        Configuration config = config("takeover");
        CuratorFramework clientA = ZooKeeperClients.start(config);
        CuratorFramework clientB = ZooKeeperClients.start(config);
        CuratorFramework clientR = ZooKeeperClients.start(config);
        ZooKeeperLeaderElection a = new ZooKeeperLeaderElection(clientA, "a");
        ZooKeeperLeaderElection b = new ZooKeeperLeaderElection(clientB, "b");
        ZooKeeperLeaderRetrieval retrieval = new ZooKeeperLeaderRetrieval(clientR);
        Contender contenderA = new Contender();
        Contender contenderB = new Contender();
        CopyOnWriteArrayList<LeaderInfo> seen = new CopyOnWriteArrayList<>();
        try {
            retrieval.start(seen::add);
            a.start(contenderA);
            await().atMost(Duration.ofSeconds(10)).until(() -> contenderA.session.get() != null);
            b.start(contenderB);
            String first = contenderA.session.get();
            a.publish(first, "127.0.0.1:1111");
            assertThat(retrieval.awaitLeader(Duration.ofSeconds(10))).isEqualTo(new LeaderInfo("127.0.0.1:1111", first));
            assertThat(a.stillLeads(first)).isTrue();
            assertThat(b.stillLeads(first)).isFalse();
            assertThat(contenderB.session.get()).as("only one leader").isNull();

            // The leader's ZooKeeper session ends, as when its process dies.
            clientA.close();
            await().atMost(Duration.ofSeconds(15)).until(() -> contenderB.session.get() != null);
            String second = contenderB.session.get();
            assertThat(second).isNotEqualTo(first);
            assertThat(a.stillLeads(first)).as("the deposed leader knows it").isFalse();
            b.publish(second, "127.0.0.1:2222");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> new LeaderInfo("127.0.0.1:2222", second).equals(seen.isEmpty() ? null
                            : seen.get(seen.size() - 1)));
        } finally {
            retrieval.close();
            b.close();
            clientB.close();
            clientR.close();
        }
    }

    @Test
    void givingUpLeadershipHandsItToTheOtherContender() throws Exception {
        Configuration config = config("give-up");
        CuratorFramework clientA = ZooKeeperClients.start(config);
        CuratorFramework clientB = ZooKeeperClients.start(config);
        ZooKeeperLeaderElection a = new ZooKeeperLeaderElection(clientA, "a");
        ZooKeeperLeaderElection b = new ZooKeeperLeaderElection(clientB, "b");
        Contender contenderA = new Contender();
        Contender contenderB = new Contender();
        try {
            a.start(contenderA);
            await().atMost(Duration.ofSeconds(10)).until(() -> contenderA.session.get() != null);
            b.start(contenderB);
            // b's latch node must exist before a steps back, or a could simply win again.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> clientA.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH).size() == 2);
            String first = contenderA.session.get();
            a.giveUpAndRejoin(first, 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> contenderB.session.get() != null);
            assertThat(a.stillLeads(first)).isFalse();
            assertThat(contenderA.events).contains("revoked");
        } finally {
            a.close();
            b.close();
            clientA.close();
            clientB.close();
        }
    }

    /**
     * A leader that gives up keeps its ZooKeeper session; the next leader's information must not
     * depend on it (an ephemeral node belongs to the session that created it).
     */
    @Test
    void theNextLeadersInformationOutlivesTheSessionOfALeaderThatGaveUp() throws Exception {
        Configuration config = config("gave-up-session-ends");
        CuratorFramework clientA = ZooKeeperClients.start(config);
        CuratorFramework clientB = ZooKeeperClients.start(config);
        CuratorFramework clientR = ZooKeeperClients.start(config);
        ZooKeeperLeaderElection a = new ZooKeeperLeaderElection(clientA, "a");
        ZooKeeperLeaderElection b = new ZooKeeperLeaderElection(clientB, "b");
        ZooKeeperLeaderRetrieval retrieval = new ZooKeeperLeaderRetrieval(clientR);
        Contender contenderA = new Contender();
        Contender contenderB = new Contender();
        try {
            a.start(contenderA);
            await().atMost(Duration.ofSeconds(10)).until(() -> contenderA.session.get() != null);
            String first = contenderA.session.get();
            a.publish(first, "127.0.0.1:1111");
            b.start(contenderB);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> clientR.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH).size() == 2);

            a.giveUpAndRejoin(first, 0);
            assertThat(clientR.checkExists().forPath(ZooKeeperLeaderElection.INFO_PATH))
                    .as("a leader that gives up withdraws its address").isNull();
            await().atMost(Duration.ofSeconds(20)).until(() -> contenderB.session.get() != null);
            String second = contenderB.session.get();
            b.publish(second, "127.0.0.1:2222");
            assertThat(infoOwner(clientR)).isEqualTo(sessionOf(clientB));

            // A's process ends; its rejoined latch node goes with its session.
            clientA.close();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> clientR.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH).size() == 1);
            retrieval.start(leader -> {});
            assertThat(retrieval.awaitLeader(Duration.ofSeconds(10))).isEqualTo(new LeaderInfo("127.0.0.1:2222", second));
        } finally {
            retrieval.close();
            b.close();
            clientB.close();
            clientR.close();
        }
    }

    /** Publishing over a node another session left behind takes it over instead of overwriting it. */
    @Test
    void publishingReplacesInformationOwnedByAnotherSession() throws Exception {
        Configuration config = config("stale-info");
        CuratorFramework stale = ZooKeeperClients.start(config);
        CuratorFramework clientA = ZooKeeperClients.start(config);
        CuratorFramework clientR = ZooKeeperClients.start(config);
        ZooKeeperLeaderElection a = new ZooKeeperLeaderElection(clientA, "a");
        ZooKeeperLeaderRetrieval retrieval = new ZooKeeperLeaderRetrieval(clientR);
        Contender contenderA = new Contender();
        try {
            stale.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .forPath(ZooKeeperLeaderElection.INFO_PATH, "{\"address\":\"127.0.0.1:1111\",\"sessionId\":\"old\"}"
                            .getBytes(StandardCharsets.UTF_8));
            a.start(contenderA);
            await().atMost(Duration.ofSeconds(10)).until(() -> contenderA.session.get() != null);
            String session = contenderA.session.get();
            a.publish(session, "127.0.0.1:2222");
            assertThat(infoOwner(clientR)).isEqualTo(sessionOf(clientA));

            stale.close();
            retrieval.start(leader -> {});
            assertThat(retrieval.awaitLeader(Duration.ofSeconds(10))).isEqualTo(new LeaderInfo("127.0.0.1:2222", session));
        } finally {
            retrieval.close();
            a.close();
            clientA.close();
            clientR.close();
        }
    }

    /**
     * A failure path of an earlier leadership that reports late (its publish failing because it
     * no longer leads, say) must not end the leadership this process holds now.
     */
    @Test
    void aLateGiveUpOfAnEarlierSessionIsIgnored() throws Exception {
        CuratorFramework client = ZooKeeperClients.start(config("stale-give-up"));
        ZooKeeperLeaderElection election = new ZooKeeperLeaderElection(client, "a");
        Contender contender = new Contender();
        try {
            election.start(contender);
            await().atMost(Duration.ofSeconds(10)).until(() -> contender.session.get() != null);
            String first = contender.session.get();
            election.giveUpAndRejoin(first, 0);
            // Alone in the election, it leads again under a new session.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> contender.session.get() != null && !first.equals(contender.session.get()));
            String second = contender.session.get();
            int events = contender.events.size();

            election.giveUpAndRejoin(first, 0);
            election.giveUpAndRejoin(null, 0);

            assertThat(election.stillLeads(second)).isTrue();
            assertThat(contender.events).hasSize(events);
            assertThat(client.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH)).hasSize(1);
        } finally {
            election.close();
            client.close();
        }
    }

    /**
     * A JobManager whose take-over failed leaves the election at once and joins it again only
     * after the delay it asks for, so that it cannot win again in a tight loop.
     */
    @Test
    void givingUpWithADelayRejoinsOnlyAfterTheDelay() throws Exception {
        CuratorFramework client = ZooKeeperClients.start(config("delayed-rejoin"));
        ZooKeeperLeaderElection election = new ZooKeeperLeaderElection(client, "a");
        Contender contender = new Contender();
        try {
            election.start(contender);
            await().atMost(Duration.ofSeconds(10)).until(() -> contender.session.get() != null);
            String first = contender.session.get();

            long start = System.nanoTime();
            election.giveUpAndRejoin(first, 2_000);

            assertThat(election.stillLeads(first)).isFalse();
            await("revoked and out of the election during the delay").atMost(Duration.ofMillis(1_500))
                    .until(() -> contender.events.contains("revoked")
                            && client.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH).isEmpty());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> contender.session.get() != null && !first.equals(contender.session.get()));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(2_000));
            assertThat(client.getChildren().forPath(ZooKeeperLeaderElection.LATCH_PATH)).hasSize(1);
        } finally {
            election.close();
            client.close();
        }
    }

    /** Closing the election withdraws the information this JobManager published. */
    @Test
    void closingWithdrawsThePublishedInformation() throws Exception {
        CuratorFramework client = ZooKeeperClients.start(config("close"));
        ZooKeeperLeaderElection election = new ZooKeeperLeaderElection(client, "a");
        Contender contender = new Contender();
        try {
            election.start(contender);
            await().atMost(Duration.ofSeconds(10)).until(() -> contender.session.get() != null);
            election.publish(contender.session.get(), "127.0.0.1:1111");
            assertThat(client.checkExists().forPath(ZooKeeperLeaderElection.INFO_PATH)).isNotNull();
            election.close();
            assertThat(client.checkExists().forPath(ZooKeeperLeaderElection.INFO_PATH)).isNull();
        } finally {
            election.close();
            client.close();
        }
    }

    private static long infoOwner(CuratorFramework client) throws Exception {
        Stat stat = client.checkExists().forPath(ZooKeeperLeaderElection.INFO_PATH);
        assertThat(stat).as("leader information").isNotNull();
        return stat.getEphemeralOwner();
    }

    private static long sessionOf(CuratorFramework client) throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }
}

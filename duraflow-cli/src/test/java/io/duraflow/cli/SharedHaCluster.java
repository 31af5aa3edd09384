package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

/**
 * The HA cluster the failover tests of one class share: two JobManagers and two TaskManagers on
 * the test JVM's ZooKeeper server. Before each test a new standby replaces the JobManager the last
 * test killed. A test that left the cluster unfit ({@link SideEffectRuns#fitForATest}) makes it
 * close, and that test and the ones after it start a cluster each.
 */
final class SharedHaCluster implements AutoCloseable {
    private final LogsOnFailure logs;
    private final ZooKeeperServer zooKeeper;
    /** Null once a test left it unfit. */
    private HaCluster shared;

    private SharedHaCluster(LogsOnFailure logs, ZooKeeperServer zooKeeper, HaCluster shared) {
        this.logs = logs;
        this.zooKeeper = zooKeeper;
        this.shared = shared;
    }

    static SharedHaCluster start(LogsOnFailure logs, Path dir) throws Exception {
        ZooKeeperServer zooKeeper = ZooKeeperServer.shared();
        return new SharedHaCluster(logs, zooKeeper, start(logs, zooKeeper, dir));
    }

    private static HaCluster start(LogsOnFailure logs, ZooKeeperServer zooKeeper, Path dir) throws Exception {
        return HaCluster.start(logs.watch(dir.resolve("cluster")), zooKeeper, 2, 2, Map.of());
    }

    /**
     * The cluster for the next test: the shared one with two JobManagers and both TaskManagers
     * registered, or, if it is unfit, a new one in {@code ownDir} that the test closes (see {@link #isShared}).
     */
    HaCluster forTest(String testName, Path ownDir) throws Exception {
        assertThat(zooKeeper.isAlive()).as("the shared ZooKeeper server runs").isTrue();
        if (shared != null && !SideEffectRuns.fitForATest(shared)) {
            System.out.printf("%s: the shared cluster is unfit; this test starts its own%n", testName);
            shared.close();
            shared = null;
        }
        if (shared == null) {
            return start(logs, zooKeeper, ownDir);
        }
        while (shared.liveJobManagers().size() < 2) {
            shared.startJobManager().address();
        }
        shared.awaitTaskManagers(2);
        return shared;
    }

    boolean isShared(HaCluster cluster) {
        return cluster == shared;
    }

    @Override
    public void close() {
        if (shared != null) {
            shared.close();
        }
    }
}

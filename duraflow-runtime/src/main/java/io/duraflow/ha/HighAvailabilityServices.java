package io.duraflow.ha;

import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import io.duraflow.jobmanager.store.JobGraphStore;
import io.duraflow.jobmanager.store.JobResultStore;
import io.duraflow.jobmanager.store.JobStores;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.curator.framework.CuratorFramework;

/**
 * Everything high availability gives a process: leader election and retrieval, and the durable
 * stores under {@code high-availability.storage-dir/<cluster-id>/}:
 * <pre>
 *   job-graphs/&lt;jobId&gt;.json        what was submitted (job graph store)
 *   job-result-store/...              terminated jobs (job result store; own path if configured)
 *   jobs/&lt;jobId&gt;/                     per-job data (event log, checkpoints), deleted by cleanup
 * </pre>
 * With {@code none} the stores are the same files under the cluster's work directory, so
 * results survive a restart; election is trivial and the JobManager address is configured.
 */
public final class HighAvailabilityServices implements AutoCloseable {
    private final Configuration config;
    private final CuratorFramework zooKeeper;
    private final Path clusterStorage;
    private JobResultStore jobResultStore;
    private JobGraphStore jobGraphStore;

    private HighAvailabilityServices(Configuration config, CuratorFramework zooKeeper) {
        this.config = config;
        this.zooKeeper = zooKeeper;
        this.clusterStorage = JobStores.clusterDirectory(config).toAbsolutePath().normalize();
    }

    public static HighAvailabilityServices create(Configuration config) {
        boolean zk = config.get(HighAvailabilityOptions.TYPE) == HighAvailabilityType.ZOOKEEPER;
        return new HighAvailabilityServices(config, zk ? ZooKeeperClients.start(config) : null);
    }

    public boolean isZooKeeper() {
        return zooKeeper != null;
    }

    public LeaderElection createLeaderElection(String participantId) {
        return zooKeeper == null ? new StandaloneLeaderElection() : new ZooKeeperLeaderElection(zooKeeper, participantId);
    }

    /** @param staticAddress the JobManager's host:port, used when high availability is off */
    public LeaderRetrieval createLeaderRetrieval(String staticAddress) {
        return zooKeeper == null ? new StaticLeaderRetrieval(staticAddress) : new ZooKeeperLeaderRetrieval(zooKeeper);
    }

    public synchronized JobResultStore jobResultStore() {
        if (jobResultStore == null) {
            jobResultStore = JobStores.jobResultStore(config, Clock.systemUTC());
        }
        return jobResultStore;
    }

    public synchronized JobGraphStore jobGraphStore() {
        if (jobGraphStore == null) {
            jobGraphStore = JobStores.jobGraphStore(config);
        }
        return jobGraphStore;
    }

    /** Where a job's own durable data lives; deleted when the job is cleaned up. */
    public Path jobDirectory(String jobId) {
        return clusterStorage.resolve("jobs").resolve(jobId);
    }

    public Path clusterStorage() {
        return clusterStorage;
    }

    @Override
    public void close() {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }
}

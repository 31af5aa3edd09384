package io.duraflow.ha;

import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.jobstore.JobStores;
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
 * results survive a restart; election is trivial and the JobManager address is configured. The
 * storage directory is a local path or a URI; its scheme picks the {@link FileSystem}, checked
 * when the services are created.
 */
public final class HighAvailabilityServices implements AutoCloseable {
    private final Configuration config;
    private final CuratorFramework zooKeeper;
    private final FileSystem fileSystem;
    private final FsPath clusterStorage;
    private JobResultStore jobResultStore;
    private JobGraphStore jobGraphStore;

    private HighAvailabilityServices(Configuration config, FileSystem fileSystem, FsPath clusterStorage,
            CuratorFramework zooKeeper) {
        this.config = config;
        this.fileSystem = fileSystem;
        this.clusterStorage = clusterStorage;
        this.zooKeeper = zooKeeper;
    }

    /**
     * @throws io.duraflow.config.IllegalConfigurationException if no file system serves the
     *     scheme of {@code high-availability.storage-dir}; checked before ZooKeeper is contacted
     */
    public static HighAvailabilityServices create(Configuration config) {
        FsPath clusterStorage = JobStores.clusterDirectory(config);
        FileSystem fileSystem = JobStores.clusterFileSystem(config);
        boolean zk = config.get(HighAvailabilityOptions.TYPE) == HighAvailabilityType.ZOOKEEPER;
        CuratorFramework zooKeeper = zk ? ZooKeeperClients.start(config) : null;
        return new HighAvailabilityServices(config, fileSystem, clusterStorage, zooKeeper);
    }

    public boolean isZooKeeper() {
        return zooKeeper != null;
    }

    /** The namespaced ZooKeeper client with ZooKeeper HA (for checkpoint id counters), else null. */
    public CuratorFramework zooKeeperClient() {
        return zooKeeper;
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

    /** The file system of {@link #clusterStorage()}, and so of every job directory. */
    public FileSystem fileSystem() {
        return fileSystem;
    }

    /** Where the jobs' own durable data lives, one {@link #jobDirectory} per job. */
    public FsPath jobsDirectory() {
        return clusterStorage.resolve("jobs");
    }

    /** Where a job's own durable data lives; deleted when the job is cleaned up. */
    public FsPath jobDirectory(String jobId) {
        return jobsDirectory().resolve(jobId);
    }

    public FsPath clusterStorage() {
        return clusterStorage;
    }

    @Override
    public void close() {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }
}

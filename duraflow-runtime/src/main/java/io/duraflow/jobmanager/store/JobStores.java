package io.duraflow.jobmanager.store;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Creates the job manager's stores from its configuration: files under the high-availability
 * storage directory, also with {@code high-availability.type: none} (then under the cluster's
 * work directory), so that results survive a restart of the JobManager:
 *
 * <pre>
 *   {high-availability.storage-dir, default {cluster.work-dir}/ha}/
 *     {high-availability.cluster-id}/
 *       job-result-store/     unless job-result-store.storage-path is set
 *       job-graphs/
 * </pre>
 */
public final class JobStores {
    private JobStores() {
    }

    /** {@code high-availability.storage-dir}, or {@code ha} under {@code cluster.work-dir} when it is unset. */
    public static Path haStorageDirectory(Configuration config) {
        String storageDir = config.get(HighAvailabilityOptions.STORAGE_DIR);
        return storageDir != null ? Path.of(storageDir) : Path.of(config.get(ClusterOptions.WORK_DIR)).resolve("ha");
    }

    /** The directory of this cluster's state in the high-availability storage directory. */
    public static Path clusterDirectory(Configuration config) {
        return haStorageDirectory(config).resolve(config.get(HighAvailabilityOptions.CLUSTER_ID));
    }

    /** {@code job-result-store.storage-path}, or {@code job-result-store} in the cluster's directory. */
    public static Path jobResultStoreDirectory(Configuration config) {
        String path = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_PATH);
        return path != null ? Path.of(path) : clusterDirectory(config).resolve("job-result-store");
    }

    /** {@code job-graphs} in the cluster's directory. */
    public static Path jobGraphStoreDirectory(Configuration config) {
        return clusterDirectory(config).resolve("job-graphs");
    }

    /** The job result store the configuration asks for; {@code clock} decides when clean results expire. */
    public static JobResultStore jobResultStore(Configuration config, Clock clock) {
        boolean deleteOnCommit = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_DELETE_ON_COMMIT);
        Duration cleanTtl = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL);
        return new FileSystemJobResultStore(jobResultStoreDirectory(config), deleteOnCommit, cleanTtl, clock);
    }

    /** The job graph store the configuration asks for. */
    public static JobGraphStore jobGraphStore(Configuration config) {
        return new FileSystemJobGraphStore(jobGraphStoreDirectory(config));
    }
}

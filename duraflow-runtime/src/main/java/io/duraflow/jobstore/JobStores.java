package io.duraflow.jobstore;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.ConfigOption;
import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
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
 *
 * Both directory options take a plain path (local, relative to the working directory) or a URI
 * whose scheme picks the {@link FileSystem} ({@code file:///data/ha}); a scheme no file system
 * serves is an {@link IllegalConfigurationException} naming the option.
 */
public final class JobStores {
    private JobStores() {
    }

    /** {@code high-availability.storage-dir}, or {@code ha} under {@code cluster.work-dir} when it is unset. */
    public static FsPath haStorageDirectory(Configuration config) {
        String storageDir = config.get(HighAvailabilityOptions.STORAGE_DIR);
        return storageDir != null ? parse(HighAvailabilityOptions.STORAGE_DIR, storageDir)
                : FsPath.of(Path.of(config.get(ClusterOptions.WORK_DIR)).resolve("ha"));
    }

    /** The directory of this cluster's state in the high-availability storage directory. */
    public static FsPath clusterDirectory(Configuration config) {
        return haStorageDirectory(config).resolve(config.get(HighAvailabilityOptions.CLUSTER_ID));
    }

    /** {@code job-result-store.storage-path}, or {@code job-result-store} in the cluster's directory. */
    public static FsPath jobResultStoreDirectory(Configuration config) {
        String path = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_PATH);
        return path != null ? parse(HighAvailabilityOptions.JOB_RESULT_STORE_PATH, path)
                : clusterDirectory(config).resolve("job-result-store");
    }

    /** {@code job-graphs} in the cluster's directory. */
    public static FsPath jobGraphStoreDirectory(Configuration config) {
        return clusterDirectory(config).resolve("job-graphs");
    }

    /**
     * The file system that holds the cluster's directory.
     *
     * @throws IllegalConfigurationException if no file system serves its scheme
     */
    public static FileSystem clusterFileSystem(Configuration config) {
        return fileSystem(HighAvailabilityOptions.STORAGE_DIR, clusterDirectory(config));
    }

    /** The job result store the configuration asks for; {@code clock} decides when clean results expire. */
    public static JobResultStore jobResultStore(Configuration config, Clock clock) {
        boolean deleteOnCommit = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_DELETE_ON_COMMIT);
        Duration cleanTtl = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL);
        FsPath directory = jobResultStoreDirectory(config);
        ConfigOption<String> option = config.get(HighAvailabilityOptions.JOB_RESULT_STORE_PATH) != null
                ? HighAvailabilityOptions.JOB_RESULT_STORE_PATH : HighAvailabilityOptions.STORAGE_DIR;
        return new FileSystemJobResultStore(fileSystem(option, directory), directory, deleteOnCommit, cleanTtl, clock);
    }

    /** The job graph store the configuration asks for. */
    public static JobGraphStore jobGraphStore(Configuration config) {
        return new FileSystemJobGraphStore(clusterFileSystem(config), jobGraphStoreDirectory(config));
    }

    private static FsPath parse(ConfigOption<String> option, String value) {
        try {
            return FsPath.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(option.key() + ": " + e.getMessage());
        }
    }

    private static FileSystem fileSystem(ConfigOption<String> option, FsPath path) {
        try {
            return FileSystems.get(path);
        } catch (FileSystems.UnsupportedFileSystemException e) {
            throw new IllegalConfigurationException(option.key() + ": " + e.getMessage(), e);
        }
    }
}

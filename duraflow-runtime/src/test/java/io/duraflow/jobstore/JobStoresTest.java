package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobStoresTest {
    @TempDir
    Path tempDir;

    @Test
    void pathsDefaultToTheWorkDirAndClusterId() {
        Configuration config = new Configuration().set(ClusterOptions.WORK_DIR, "/var/duraflow");

        assertThat(JobStores.haStorageDirectory(config)).isEqualTo(FsPath.of(Path.of("/var/duraflow/ha")));
        assertThat(JobStores.jobResultStoreDirectory(config))
                .isEqualTo(FsPath.of(Path.of("/var/duraflow/ha/default/job-result-store")));
        assertThat(JobStores.jobGraphStoreDirectory(config)).isEqualTo(FsPath.of(Path.of("/var/duraflow/ha/default/job-graphs")));
    }

    @Test
    void explicitPathsWin() {
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.STORAGE_DIR, "/shared/ha")
                .set(HighAvailabilityOptions.CLUSTER_ID, "prod-1");

        assertThat(JobStores.jobResultStoreDirectory(config)).isEqualTo(FsPath.of(Path.of("/shared/ha/prod-1/job-result-store")));
        assertThat(JobStores.jobGraphStoreDirectory(config)).isEqualTo(FsPath.of(Path.of("/shared/ha/prod-1/job-graphs")));

        config.set(HighAvailabilityOptions.JOB_RESULT_STORE_PATH, "/results");
        assertThat(JobStores.jobResultStoreDirectory(config)).isEqualTo(FsPath.of(Path.of("/results")));
    }

    @Test
    void withoutHighAvailabilityTheStoresAreFilesUnderTheWorkDirectory() {
        Configuration config = new Configuration().set(ClusterOptions.WORK_DIR, tempDir.toString());

        JobResultStore results = JobStores.jobResultStore(config, new ManualClock(0));
        assertThat(((FileSystemJobResultStore) results).directory())
                .isEqualTo(FsPath.of(tempDir.resolve("ha/default/job-result-store")));
        assertThat(((FileSystemJobGraphStore) JobStores.jobGraphStore(config)).directory())
                .isEqualTo(FsPath.of(tempDir.resolve("ha/default/job-graphs")));
    }

    @Test
    void withZooKeeperTheStoresAreFilesWithTheConfiguredSettings() throws Exception {
        ManualClock clock = new ManualClock(TestEntries.ENDED_AT_MS);
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityType.ZOOKEEPER)
                .set(HighAvailabilityOptions.STORAGE_DIR, tempDir.toString())
                .set(HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL, Duration.ofMinutes(5));

        JobResultStore results = JobStores.jobResultStore(config, clock);
        assertThat(results).isInstanceOf(FileSystemJobResultStore.class);
        assertThat(((FileSystemJobResultStore) results).directory())
                .isEqualTo(FsPath.of(tempDir.resolve("default/job-result-store")));
        JobGraphStore graphs = JobStores.jobGraphStore(config);
        assertThat(((FileSystemJobGraphStore) graphs).directory()).isEqualTo(FsPath.of(tempDir.resolve("default/job-graphs")));

        results.createDirtyResult(TestEntries.finished("j1"));
        results.markResultAsClean("j1");
        assertThat(results.hasCleanJobResultEntry("j1")).as("delete-on-commit is off by default").isTrue();
        clock.advance(Duration.ofMinutes(6));
        assertThat(results.expireCleanResults()).hasSize(1);
    }

    @Test
    void aFileUriIsTheLocalFileSystem() throws Exception {
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.STORAGE_DIR, tempDir.toUri().toString())
                .set(HighAvailabilityOptions.CLUSTER_ID, "c1");

        assertThat(JobStores.clusterDirectory(config)).isEqualTo(FsPath.of(tempDir.resolve("c1")));
        assertThat(JobStores.clusterFileSystem(config)).isSameAs(LocalFileSystem.INSTANCE);
        JobResultStore results = JobStores.jobResultStore(config, new ManualClock(0));
        results.createDirtyResult(TestEntries.finished("j1"));
        assertThat(tempDir.resolve("c1/job-result-store/j1.dirty.json")).exists();
    }

    @Test
    void aSchemeWithoutAFileSystemIsAOneLineErrorNamingTheOption() {
        Configuration config = new Configuration().set(HighAvailabilityOptions.STORAGE_DIR, "hdfs://namenode:8020/ha");

        assertThat(JobStores.clusterDirectory(config).toString()).isEqualTo("hdfs://namenode:8020/ha/default");
        assertThatThrownBy(() -> JobStores.jobGraphStore(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageStartingWith("high-availability.storage-dir: no file system for scheme 'hdfs'")
                .hasMessageContaining("hdfs://namenode:8020/ha/default")
                .hasMessageContaining("needs the duraflow-hadoop jar on the class path")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> JobStores.jobResultStore(config, new ManualClock(0)))
                .isInstanceOf(IllegalConfigurationException.class);

        config.set(HighAvailabilityOptions.STORAGE_DIR, "/local/ha")
                .set(HighAvailabilityOptions.JOB_RESULT_STORE_PATH, "s3://bucket/results");
        assertThatThrownBy(() -> JobStores.jobResultStore(config, new ManualClock(0)))
                .hasMessageStartingWith("job-result-store.storage-path: no file system for scheme 's3'");
    }
}

package io.duraflow.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.HighAvailabilityOptions;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HighAvailabilityServicesTest {
    @TempDir
    Path tempDir;

    @Test
    void storageIsUnderTheWorkDirectoryByDefault() {
        Configuration config = new Configuration().set(ClusterOptions.WORK_DIR, tempDir.toString());

        try (HighAvailabilityServices ha = HighAvailabilityServices.create(config)) {
            assertThat(ha.fileSystem()).isSameAs(LocalFileSystem.INSTANCE);
            assertThat(ha.clusterStorage()).isEqualTo(FsPath.of(tempDir.resolve("ha/default")));
            assertThat(ha.jobsDirectory()).isEqualTo(FsPath.of(tempDir.resolve("ha/default/jobs")));
            assertThat(ha.jobDirectory("j1")).isEqualTo(FsPath.of(tempDir.resolve("ha/default/jobs/j1")));
        }
    }

    @Test
    void aFileUriStorageDirectoryHoldsTheStores() throws Exception {
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.STORAGE_DIR, tempDir.toUri().toString())
                .set(HighAvailabilityOptions.CLUSTER_ID, "prod");

        try (HighAvailabilityServices ha = HighAvailabilityServices.create(config)) {
            assertThat(ha.clusterStorage()).isEqualTo(FsPath.of(tempDir.resolve("prod")));
            ha.jobResultStore().createDirtyResult(new JobResultEntry("j1", "Job", "com.example.Job",
                    JobOutcome.FINISHED, 1, 2, "", 0, Map.of(), Map.of(), List.of(), List.of()));
        }
        assertThat(tempDir.resolve("prod/job-result-store/j1.dirty.json")).exists();
    }

    @Test
    void aStorageDirectoryOnAnUnsupportedFileSystemIsAOneLineConfigurationError() {
        Configuration config = new Configuration().set(HighAvailabilityOptions.STORAGE_DIR, "hdfs://namenode:8020/ha");

        assertThatThrownBy(() -> HighAvailabilityServices.create(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("high-availability.storage-dir: no file system for scheme 'hdfs' (in"
                        + " hdfs://namenode:8020/ha/default): Duraflow serves file paths here; hdfs: needs the"
                        + " duraflow-hadoop jar on the class path (bin/duraflow has it)");
    }
}

package io.duraflow.exchange.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kept partitions: what a TaskManager reported to a new leader, and what a release of them may touch. */
class PartitionStoreTest {
    @TempDir
    Path dir;

    private static void write(PartitionStore store, String jobId, String partitionId) throws IOException {
        try (PartitionFileWriter writer = store.create(jobId, partitionId, 1, 1024)) {
            writer.write(0, new byte[] {1, 2, 3}, 0, 3);
            writer.finish();
        }
        store.publish(jobId, partitionId);
    }

    private Path dataFile(String jobId, String partitionId) {
        return dir.resolve("partitions").resolve(jobId).resolve(partitionId + ".data");
    }

    /**
     * A file of the job that cannot be deleted fails the release, naming it, so the TaskManager
     * refuses the request and the JobManager's cleanup asks again; the next release deletes the rest.
     */
    @Test
    void aJobsReleaseThatCannotDeleteAFileFailsNamingItAndCanBeRepeated() throws IOException {
        java.util.concurrent.atomic.AtomicBoolean diskFails = new java.util.concurrent.atomic.AtomicBoolean(true);
        PartitionStore store = new PartitionStore(dir, path -> {
            if (diskFails.get() && path.toString().endsWith(".index")) {
                throw new java.nio.file.AccessDeniedException(path.toString());
            }
            Files.deleteIfExists(path);
        });
        write(store, "a", "a-v0-s0-a0-e0");
        write(store, "b", "b-v0-s0-a0-e0");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.releaseJob("a"))
                .isInstanceOf(java.nio.file.AccessDeniedException.class).hasMessageContaining("a-v0-s0-a0-e0.index");
        assertThat(store.lookup("a-v0-s0-a0-e0")).as("no longer served").isNull();

        diskFails.set(false);
        store.releaseJob("a");
        store.releaseJob("a");

        assertThat(dir.resolve("partitions").resolve("a")).doesNotExist();
        assertThat(dataFile("b", "b-v0-s0-a0-e0")).as("another job's").exists();
    }

    @Test
    void releasingKeptPartitionsSparesOutputWrittenSinceUnderTheSameId() throws IOException {
        PartitionStore store = new PartitionStore(dir);
        write(store, "a", "a-v0-s0-a0-e0");
        write(store, "a", "a-v0-s1-a0-e0");
        write(store, "b", "b-v0-s0-a0-e0");
        assertThat(store.keepPublished()).hasSize(3);

        // A full restart of job a runs v0/0 again as attempt 0 before the release of the kept output arrives.
        write(store, "a", "a-v0-s0-a0-e0");
        store.releaseKept("a", List.of());

        assertThat(store.lookup("a-v0-s0-a0-e0")).as("written since the registration").isNotNull();
        assertThat(dataFile("a", "a-v0-s0-a0-e0")).exists();
        assertThat(store.lookup("a-v0-s1-a0-e0")).isNull();
        assertThat(dataFile("a", "a-v0-s1-a0-e0")).doesNotExist();
        assertThat(store.lookup("b-v0-s0-a0-e0")).as("another job's").isNotNull();
    }

    @Test
    void namedKeptPartitionsAreReleasedOnlyForTheirJobAndOnlyOnce() throws IOException {
        PartitionStore store = new PartitionStore(dir);
        write(store, "a", "p1");
        write(store, "a", "p2");
        store.keepPublished();

        store.releaseKept("other", List.of("p1"));
        assertThat(store.lookup("p1")).as("p1 belongs to job a").isNotNull();
        store.releaseKept("a", List.of("p1"));
        assertThat(store.lookup("p1")).isNull();
        assertThat(Files.exists(dataFile("a", "p2"))).isTrue();

        write(store, "a", "p1");
        store.releaseKept("a", List.of("p1"));
        assertThat(store.lookup("p1")).as("p1 was written again after it was released").isNotNull();
    }
}

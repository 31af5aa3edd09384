package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dead TaskManager's files are swept at the next start; a live one's are never touched. */
class InstanceDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void claimingADataDirectoryLeftByADeadTaskManagerSweepsItsPartitionsAndSpillFiles() throws IOException {
        Path data = dir.resolve("tm");
        Path partition = write(data.resolve("partitions/job/job-v0-s0-a0-e0.data"));
        Path spill = write(data.resolve("spill/run-1.spill"));
        Path rocksdb = write(data.resolve("state/job-v1-s0-a0/op-sum/db/000012.sst"));
        Path foreign = write(data.resolve("notes.txt"));
        write(data.resolve(InstanceDirectory.LOCK_FILE));  // its owner is gone: nobody holds the lock

        try (InstanceDirectory claimed = InstanceDirectory.claim(data)) {
            assertThat(claimed.path()).isEqualTo(data);
            assertThat(partition).doesNotExist();
            assertThat(spill).doesNotExist();
            assertThat(rocksdb).as("a killed task's RocksDB files").doesNotExist();
            assertThat(foreign).as("only what a TaskManager writes is swept").exists();
        }
    }

    @Test
    void aDataDirectoryOfALiveTaskManagerIsRefusedAndLeftAlone() throws IOException {
        Path data = dir.resolve("tm");
        try (InstanceDirectory live = InstanceDirectory.claim(data)) {
            Path partition = write(data.resolve("partitions/job/p.data"));

            assertThatThrownBy(() -> InstanceDirectory.claim(data)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("in use by a running TaskManager (pid " + ProcessHandle.current().pid())
                    .hasMessageContaining("give each TaskManager its own taskmanager.data-dir");
            assertThat(partition).exists();
        }
    }

    @Test
    void aNewTemporaryDirectoryDeletesThoseOfDeadTaskManagersButNotOfLiveOnes() throws IOException {
        Path dead = dir.resolve(InstanceDirectory.TEMP_PREFIX + "dead");
        write(dead.resolve(InstanceDirectory.LOCK_FILE));
        write(dead.resolve("partitions/job/p.data"));
        Path unlocked = write(dir.resolve(InstanceDirectory.TEMP_PREFIX + "nolock/partitions/job/p.data"));
        try (InstanceDirectory live = InstanceDirectory.createTemporary(dir)) {
            Path livePartition = write(live.path().resolve("partitions/job/p.data"));

            try (InstanceDirectory another = InstanceDirectory.createTemporary(dir)) {
                assertThat(dead).doesNotExist();
                assertThat(unlocked).as("no lock file: perhaps not a TaskManager's").exists();
                assertThat(livePartition).exists();
                assertThat(another.path()).isNotEqualTo(live.path());
            }
            assertThat(live.path()).exists();
        }
    }

    @Test
    void aSigkilledTaskManagerProcessLeavesADirectoryTheNextOneSweeps() throws Exception {
        Path data = dir.resolve("tm");
        Path log = Files.createDirectories(Path.of("target", "process-logs", getClass().getSimpleName()))
                .resolve("holder.log");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Holder.class.getName(), data.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Path partition = data.resolve("partitions/job/p.data");
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(partition));
            assertThatThrownBy(() -> InstanceDirectory.claim(data)).as("alive")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("pid " + holder.pid());

            holder.destroyForcibly();  // SIGKILL
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();

            try (InstanceDirectory claimed = InstanceDirectory.claim(data)) {
                assertThat(partition).doesNotExist();
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    /** A stand-in TaskManager process: claims the directory, writes a partition file, waits to be killed. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            InstanceDirectory claimed = InstanceDirectory.claim(Path.of(args[0]));
            write(claimed.path().resolve("partitions/job/p.data"));
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        }
    }

    private static Path write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, List.of("x"));
        return file;
    }
}

package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointVerifier;
import io.duraflow.cli.MergedCheckpoints.Merging;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.hadoop.MiniHdfs;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint file merging on a real distributed file system, with real processes.
 * This JVM starts an HDFS ({@link MiniHdfs}: a NameNode and a DataNode, loopback only); a
 * JobManager and two TaskManagers are processes that reach it over Hadoop's RPC with the client
 * that {@code bin/duraflow} ships ({@code duraflow-hadoop}). Two jobs run at once with {@code
 * execution.checkpointing.dir = hdfs://127.0.0.1:<port>/checkpoints}, a checkpoint every 300 ms,
 * nothing inlined into {@code _metadata}, {@code retain-on-cancellation}:
 * <ul>
 *   <li>{@code rocksdb-across}: {@link StreamingKeyedSum}'s job on RocksDB with incremental
 *       checkpoints, merging across checkpoints, writing through the exactly-once file sink, run
 *       to its end; its keyed function holds one checkpoint open ({@link StallingKeyedSum}), so
 *       that the kill comes during a checkpoint for sure, with the job still running;</li>
 *   <li>{@code heap-within}: {@link StreamingKeyedSum} without end or output on the heap backend
 *       (full snapshots, all private state), merging within checkpoints, cancelled.</li>
 * </ul>
 * The test checks:
 * <ol>
 *   <li>both complete checkpoints, and the NameNode lists the RocksDB job's merged files under
 *       {@code shared/subtask-<i>-<p>-v<vertex>/} and both jobs' under {@code
 *       taskowned/<tm>-<run>/};</li>
 *   <li>the TaskManager that holds the checkpoint open, which runs tasks of both jobs, is
 *       SIGKILLed and another one starts: both jobs restore a checkpoint from HDFS and complete
 *       checkpoints again; the RocksDB job ends with exactly-once output;</li>
 *   <li>once both ended, {@code duraflow checkpoints verify} (a process, as a user runs it) on
 *       both {@code hdfs://} job directories says OK: no missing, corrupt or orphan file; the
 *       NameNode lists nothing but the retained checkpoints' {@code _metadata} and the merged
 *       files they refer to, fewer than their segments.</li>
 * </ol>
 */
class FileMergingHdfsIT {
    private static final long RECORDS = 60_000;
    private static final long KEYS = 30_000;
    /** The RocksDB job reads for about 10 s: time for a few checkpoints before and after the kill. */
    private static final long RATE = 6_000;
    private static final String INTERVAL = "300ms";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String ROCKSDB = "rocksdb-across";
    private static final String HEAP = "heap-within";

    static {
        // The NameNode and DataNode in this JVM log every block and every call at INFO.
        if (LoggerFactory.getLogger("org.apache.hadoop") instanceof ch.qos.logback.classic.Logger logger) {
            logger.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private MiniDFSCluster hdfs;
    private TestCluster cluster;
    private ClusterClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            if (hdfs != null) {
                hdfs.shutdown(true);
            }
        }
    }

    private FsPath checkpoints() {
        return FsPath.parse("hdfs://127.0.0.1:" + hdfs.getNameNodePort() + "/checkpoints");
    }

    private FsPath jobDirectory(String jobId) {
        return checkpoints().resolve(jobId);
    }

    private Path output() {
        return tempDir.resolve("output");
    }

    @Test
    void mergedCheckpointsOnHdfsThroughATaskManagerKillVerifyClean() throws Exception {
        long started = System.nanoTime();
        hdfs = MiniHdfs.start(tempDir.resolve("hdfs"));
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2, Map.of("taskmanager.slots", "4"));
        client = new ClusterClient(cluster.address());
        Path marker = tempDir.resolve("stalled");
        Map<String, String> stalling = MergedCheckpoints.keyedSum(RECORDS, KEYS, RATE, output());
        stalling.put("stall-after-results", "200");
        stalling.put("stall-marker", marker.toString());
        client.submit(SubmitJobRequest.newBuilder().setJobId(ROCKSDB).setJobClass(StallingKeyedSum.class.getName())
                .putAllParams(stalling)
                .putAllConfig(MergedCheckpoints.config(checkpoints(), INTERVAL, Merging.ACROSS, true))
                .setParallelism(2).build());
        Map<String, String> heapConfig = MergedCheckpoints.config(checkpoints(), INTERVAL, Merging.WITHIN, true);
        heapConfig.put("state.backend.type", "heap");
        heapConfig.remove("state.backend.incremental");
        client.submit(SubmitJobRequest.newBuilder().setJobId(HEAP).setJobClass(StreamingKeyedSum.class.getName())
                .putAllParams(Map.of("records", "0", "keys", Long.toString(KEYS), "rate", "2000"))
                .putAllConfig(heapConfig).setParallelism(2).build());

        // 1. Checkpoints complete; subtask 0 of the RocksDB job's "Sum per key" holds one open. The
        // NameNode lists merged files.
        await("subtask 0 of " + ROCKSDB + "'s 'Sum per key' holds a checkpoint open").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).ignoreException(CliException.class)
                .failFast(ROCKSDB + " ended", () -> JobRunner.isTerminal(client.status(ROCKSDB).getState()))
                .until(() -> Files.exists(marker));
        StallingKeyedSum.Stall stall = StallingKeyedSum.Stall.read(marker);
        long stalled = stall.checkpointId();
        // Subtask 1 acknowledges it (the sources too unless they already read everything).
        await("files of checkpoint " + stalled + " of " + ROCKSDB + " acknowledged").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).until(() -> client.checkpoints(ROCKSDB).getCheckpointsList().stream()
                        .anyMatch(c -> c.getCheckpointId() == stalled && c.getFiles() >= 1));
        awaitCompleted(HEAP, 2);
        Map<String, Long> onTheNameNode = nameNodeFiles(ROCKSDB);
        assertThat(onTheNameNode.keySet()).as("files of %s on the NameNode", ROCKSDB)
                .anyMatch(file -> file.matches("shared/subtask-\\d+-2-v\\d+/[^/]+"))
                .anyMatch(file -> file.matches("taskowned/[^/]+/[^/]+"))
                .anyMatch(file -> file.matches("chk-\\d+/_metadata"));
        assertThat(nameNodeFiles(HEAP).keySet()).as("files of %s on the NameNode", HEAP)
                .anyMatch(file -> file.matches("taskowned/[^/]+/[^/]+"))
                .noneMatch(file -> file.startsWith("shared/"));
        System.out.printf("%s while checkpoint %d is held open, on the NameNode: %s%n", ROCKSDB, stalled,
                onTheNameNode.keySet());

        // 2. That TaskManager, which runs tasks of both jobs, is SIGKILLed; another one starts.
        int victim = cluster.taskManagerIndexOfPid(stall.pid());
        String victimId = cluster.taskManagerId(victim);
        assertThat(taskManagersOf(HEAP)).as("TaskManagers that run tasks of %s", HEAP).contains(victimId);
        long heapBefore = client.checkpoints(HEAP).getLatestCompletedId();
        cluster.killTaskManager(victim);
        cluster.startTaskManager();
        awaitCompletedAfter(ROCKSDB, stalled);
        awaitCompletedAfter(HEAP, heapBefore);
        for (String jobId : List.of(ROCKSDB, HEAP)) {
            assertThat(cluster.logText("jobmanager")).as("the JobManager's log").contains("Job " + jobId
                    + ": tasks restore checkpoint ");
        }

        // The RocksDB job runs to its end; the heap job is cancelled.
        JobResult rocksdb = cluster.awaitResult(ROCKSDB, JOB_TIMEOUT);
        assertThat(rocksdb.getStatus().getState()).as("state of %s, failure '%s'", ROCKSDB,
                rocksdb.getStatus().getFailure()).isEqualTo(JobState.JOB_FINISHED);
        MergedCheckpoints.assertExactOutput(output(), RECORDS, KEYS);
        client.cancel(HEAP);
        assertThat(cluster.awaitResult(HEAP, JOB_TIMEOUT).getStatus().getState()).as("state of %s", HEAP)
                .isEqualTo(JobState.JOB_CANCELED);
        awaitRetentionStep(ROCKSDB, "FINISHED");
        awaitRetentionStep(HEAP, "CANCELED");

        // 3. Verified clean on HDFS, and merged.
        CheckpointVerifier.Report ofRocksDb = MergedCheckpoints.awaitClean(jobDirectory(ROCKSDB));
        CheckpointVerifier.Report ofHeap = MergedCheckpoints.awaitClean(jobDirectory(HEAP));
        assertMerged(ROCKSDB, ofRocksDb, true);
        assertMerged(HEAP, ofHeap, false);
        for (String jobId : List.of(ROCKSDB, HEAP)) {
            Cli.Result verify = Cli.run(LOGS.watch(tempDir), Duration.ofSeconds(90), "checkpoints", "verify",
                    jobDirectory(jobId).toString());
            assertThat(verify.exitCode()).as("%s", verify).isZero();
            assertThat(verify.stdout()).as("%s", verify).contains("Checking " + jobDirectory(jobId))
                    .contains("  0 missing, 0 corrupt, 0 orphans").endsWith("OK\n");
            System.out.print(verify.stdout());
        }
        System.out.printf("killed taskmanager-%d (%s) while it held checkpoint %d of %s%n%s: %s%n%s: %s%n"
                        + "FileMergingHdfsIT: %.1f s%n", victim, victimId, stalled, ROCKSDB, ROCKSDB,
                MergedCheckpoints.describe(ofRocksDb), HEAP, MergedCheckpoints.describe(ofHeap),
                (System.nanoTime() - started) / 1e9);
    }

    /**
     * The retained checkpoints refer to merged files only, fewer than their segments, and those are
     * every file the NameNode lists under {@code shared/} (RocksDB's, one directory per subtask)
     * and {@code taskowned/}; {@code chk-<n>/} holds nothing but {@code _metadata}.
     */
    private void assertMerged(String jobId, CheckpointVerifier.Report report, boolean shared) throws IOException {
        Map<String, Long> files = nameNodeFiles(jobId);
        List<String> merged = files.keySet().stream().filter(f -> f.startsWith("shared/") || f.startsWith("taskowned/"))
                .toList();
        List<String> metadata = report.checkpointIds().stream().map(id -> "chk-" + id + "/_metadata").toList();
        assertThat(files.keySet()).as("files of %s on the NameNode", jobId).containsAll(metadata)
                .hasSize(merged.size() + metadata.size());
        assertThat(merged).as("merged files of %s under taskowned/ on the NameNode", jobId)
                .anyMatch(file -> file.matches("taskowned/[^/]+/[^/]+"));
        if (shared) {
            assertThat(merged).as("merged files of %s under shared/ on the NameNode", jobId)
                    .anyMatch(file -> file.matches("shared/subtask-\\d+-2-v\\d+/[^/]+"))
                    .allMatch(file -> file.matches("(shared/subtask-\\d+-2-v\\d+|taskowned/[^/]+)/[^/]+"));
        } else {
            assertThat(merged).as("merged files of %s (full snapshots: task-owned only)", jobId)
                    .allMatch(file -> file.matches("taskowned/[^/]+/[^/]+"));
        }
        assertThat(report.mergedFiles()).as("merged files %s's retained checkpoints refer to", jobId)
                .isEqualTo(merged.size());
        assertThat(report.referencedFiles()).as("files %s's retained checkpoints refer to: their _metadata and"
                + " merged files", jobId).isEqualTo(metadata.size() + merged.size());
        assertThat(report.segments()).as("segments in the %d merged files of %s", report.mergedFiles(), jobId)
                .isGreaterThan(report.mergedFiles());
    }

    // ------------------------------------------------------------------ the NameNode's view

    /**
     * Relative path -> length of every file below the job's directory, as the NameNode lists it
     * to Hadoop's own client (not through Duraflow's file system).
     */
    private Map<String, Long> nameNodeFiles(String jobId) throws IOException {
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("/checkpoints/" + jobId);
        Map<String, Long> files = new TreeMap<>();
        org.apache.hadoop.fs.FileSystem fileSystem = hdfs.getFileSystem();
        if (!fileSystem.exists(root)) {
            return files;
        }
        String prefix = fileSystem.makeQualified(root).toUri().getPath() + "/";
        RemoteIterator<LocatedFileStatus> listing = fileSystem.listFiles(root, true);
        while (listing.hasNext()) {
            LocatedFileStatus status = listing.next();
            files.put(status.getPath().toUri().getPath().substring(prefix.length()), status.getLen());
        }
        return files;
    }

    // ------------------------------------------------------------------ the cluster

    /** The ids of the TaskManagers that run tasks of the job now. */
    private Set<String> taskManagersOf(String jobId) {
        JobStatus status = client.status(jobId);
        Set<String> ids = new HashSet<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (TaskStatus task : vertex.getTasksList()) {
                if (task.getState().equals("RUNNING")) {
                    ids.add(task.getTmId());
                }
            }
        }
        return ids;
    }

    private void awaitCompleted(String jobId, int count) {
        await(count + " completed checkpoints of " + jobId).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .failFast(jobId + " ended", () -> JobRunner.isTerminal(client.status(jobId).getState()))
                .until(() -> client.checkpoints(jobId).getCompleted() >= count);
    }

    /** Waits until a checkpoint after {@code id} completed (a finished job's final one counts). */
    private void awaitCompletedAfter(String jobId, long id) {
        await("a checkpoint of " + jobId + " after " + id + " completes").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .failFast(jobId + " failed or was cancelled", () -> {
                    JobState state = client.status(jobId).getState();
                    return JobRunner.isTerminal(state) && state != JobState.JOB_FINISHED;
                })
                .until(() -> client.checkpoints(jobId).getLatestCompletedId() > id);
    }

    /** Waits until the JobManager logged that the ended job's retained checkpoints stay (its cleanup ran). */
    private void awaitRetentionStep(String jobId, String state) {
        await("the cleanup of " + jobId + " ran").atMost(Duration.ofSeconds(60)).pollInterval(POLL)
                .until(() -> cluster.logText("jobmanager").contains("Job " + jobId + " ended as " + state
                        + ": its checkpoints stay under"));
    }
}

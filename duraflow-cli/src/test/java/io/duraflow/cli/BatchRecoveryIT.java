package io.duraflow.cli;

import static io.duraflow.cli.StagedJobRuns.JOB;
import static io.duraflow.cli.StagedJobRuns.JOB_TIMEOUT;
import static io.duraflow.cli.StagedJobRuns.PARALLELISM;
import static io.duraflow.cli.StagedJobRuns.PARAMS;
import static io.duraflow.cli.StagedJobRuns.assertExactResult;
import static io.duraflow.cli.StagedJobRuns.awaitStatus;
import static io.duraflow.cli.StagedJobRuns.finished;
import static io.duraflow.cli.StagedJobRuns.awaitFinishesLogged;
import static io.duraflow.cli.StagedJobRuns.finalAttempts;
import static io.duraflow.cli.SideEffectRuns.fitForATest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch job recovery end to end, with real processes: a ZooKeeper server, JobManagers and
 * TaskManagers on loopback, SIGKILL (and SIGSTOP) at chosen moments of a three-stage job
 * ({@link StagedJob}: 8 sources -> sum per key over 10,000 keys in 4 tasks -> sum per bucket).
 * The TaskManagers have one slot each, so every stage runs in waves. Each test checks the exact
 * result and, task by task, which work a crash cost: a task that had finished before a crash
 * (and whose output survived) ends with the attempt number it finished with; a task whose output
 * was lost ran again with a higher one.
 *
 * <p>Repeated leader kills during one job, and a TaskManager lost while no leader is up, are
 * properties of the whole-cluster simulation ({@code ClusterSimulationBatchTest} in the runtime's
 * tests), which checks them over many seeds and kill points.
 *
 * <p>The tests share one cluster: the first leaves two idle TaskManagers and a leader, and the
 * JobManager it killed is replaced by a new standby before the second, which adds and freezes
 * TaskManagers and so runs last. If the first left the cluster otherwise (it failed), the second
 * starts its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BatchRecoveryIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static ZooKeeperServer zooKeeper;
    /** The cluster the tests share. */
    private static HaCluster shared;
    /** The cluster of this test: the shared one, or its own. */
    private HaCluster cluster;

    /** A finished task as the leader reported it: its attempt and TaskManager. */
    private record Finished(int attempt, String tmId) {}

    @BeforeAll
    static void startZooKeeperAndCluster() throws Exception {
        zooKeeper = ZooKeeperServer.shared();
        shared = StagedJobRuns.startCluster(LOGS.watch(sharedDir.resolve("cluster")), zooKeeper, Map.of());
    }

    @AfterAll
    static void stopSharedCluster() {
        if (shared != null) {
            shared.close();
        }
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null && cluster != shared) {
            cluster.close();
        }
    }

    /**
     * A TaskManager holding finished source output freezes (SIGSTOP) as the leader is killed. The
     * new leader waits for it at most the previous-worker timeout, then runs its lost producers
     * again. When the TaskManager comes back (SIGCONT) it registers with the partitions it kept;
     * they are stale and are released. The job's result is exact and nothing is left behind.
     */
    @Test
    @Order(2)
    void aTaskManagerBackAfterTheRecoveryTimeoutIsHandled(TestInfo test) throws Exception {
        cluster = readyCluster();
        String jobId = "tm-back-late";
        Map<TaskKey, Finished> finished = submitAndAwaitHalfTheSources(SubmitJobRequest.newBuilder().setJobId(jobId)
                .setJobClass(JOB).putAllParams(PARAMS).setParallelism(PARALLELISM)
                .putConfig("execution.batch.job-recovery.previous-worker.recovery.timeout", "2s").build());
        String lateTm = finished.values().iterator().next().tmId();
        int late = cluster.taskManagerIndex(lateTm);

        cluster.pauseTaskManager(late);
        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        int replacement = cluster.addTaskManager();
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        cluster.awaitLog(next, "Job " + jobId + " recovered", HaCluster.FAILOVER_TIMEOUT);
        cluster.resumeTaskManager(late);
        await("the thawed " + lateTm + " registers at the new leader").atMost(HaCluster.FAILOVER_TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> cluster.logText("taskmanager-" + late).contains("TaskManager " + lateTm
                        + " registered at JobManager " + next.address()));

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertExactResult(result);
        assertOnlyOutputOf(lateTm, finished, finalAttempts(result.getStatus()));
        assertNoPartitionsLeft(jobId, List.of(0, 1, replacement));
        System.out.printf("%s: %s came back after the recovery timeout; %d of %d finished tasks ran again%n",
                test.getDisplayName(), lateTm, finished.values().stream().filter(f -> f.tmId().equals(lateTm)).count(),
                finished.size());
    }

    /**
     * A task that collected a large result (4 MiB here, so the job event log keeps it in a file of
     * its own) finishes; the leader is SIGKILLed while another branch still runs. The new leader
     * takes the task over with its result read back from that file: it does not run again, and the
     * job's result holds every record.
     */
    @Test
    @Order(1)
    void aLargeCollectedResultSurvivesAJobManagerKill(TestInfo test) throws Exception {
        cluster = readyCluster();
        String jobId = "large-collected";
        String job = LargeResultJob.class.getName();
        int records = 4_096;
        int recordBytes = 1_024;
        Map<String, String> params = Map.of("gate", tempDir.resolve("gate").toString(),
                "records", Integer.toString(records), "record-bytes", Integer.toString(recordBytes));
        cluster.submit(jobId, job, params, 1);
        JobStatus before = awaitStatus(cluster, jobId, s -> finished(s, 0) == 1, "the large result is collected");
        assertThat(before.getVertices(0).getName()).contains("big numbers");
        Map<TaskKey, Finished> finished = finishedTasks(before);
        awaitFinishesLogged(cluster, jobId, attempts(finished));
        Path log = cluster.jobDirectory(jobId).resolve(io.duraflow.jobmanager.dispatcher.Dispatcher.JOB_EVENTS_DIRECTORY);
        try (var files = Files.list(log)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("the result is out of line")
                    .anyMatch(name -> name.startsWith("collected.0.0."));
        }

        cluster.killLeaderAndAwaitTheNext(cluster.leader().orElseThrow());
        Files.createFile(tempDir.resolve("gate"));

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertThat(result.getStatus().getState()).as("failure '%s'", result.getStatus().getFailure())
                .isEqualTo(io.duraflow.rpc.proto.JobState.JOB_FINISHED);
        List<Object> big = TestCluster.decode(result, job, params, 1).get(LargeResultJob.BIG);
        assertThat(big).hasSize(records);
        for (int i = 0; i < records; i++) {
            assertThat(big.get(i)).isEqualTo(LargeResultJob.record(i, recordBytes));
        }
        Map<TaskKey, Integer> attempts = finalAttempts(result.getStatus());
        finished.forEach((task, done) -> assertThat(attempts.get(task))
                .as("attempt of %s, finished as #%d before the crash", task, done.attempt()).isEqualTo(done.attempt()));
        await("the job's directory, collected data files included, is cleaned up").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> !Files.exists(cluster.jobDirectory(jobId)));
        System.out.printf("%s: %,d bytes collected by %s, kept through the failover%n", test.getDisplayName(),
                result.getCollectedList().stream().mapToLong(c -> c.getData().size()).sum(), finished.keySet());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The shared cluster with a new standby in place of the JobManager the last test killed, or a
     * cluster of this test's own if the shared one is unfit.
     */
    private HaCluster readyCluster() throws Exception {
        if (!fitForATest(shared)) {
            System.out.println("The shared cluster is unfit; this test starts its own");
            return StagedJobRuns.startCluster(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, Map.of());
        }
        while (shared.liveJobManagers().size() < 2) {
            shared.startJobManager().address();
        }
        shared.awaitTaskManagers(2);
        return shared;
    }

    /** Submits the job and waits until half of its sources finished and the log has their finishes. */
    private Map<TaskKey, Finished> submitAndAwaitHalfTheSources(SubmitJobRequest job) {
        String jobId = cluster.submit(job);
        JobStatus before = awaitStatus(cluster, jobId, s -> finished(s, StagedJob.SOURCE) >= 4, "half of the sources finished");
        Map<TaskKey, Finished> finished = finishedTasks(before);
        awaitFinishesLogged(cluster, jobId, attempts(finished));
        return finished;
    }

    private static Map<TaskKey, Finished> finishedTasks(JobStatus status) {
        Map<TaskKey, Finished> finished = new TreeMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                TaskStatus task = vertex.getTasks(subtask);
                if (task.getState().equals("FINISHED")) {
                    finished.put(new TaskKey(vertex.getId(), subtask), new Finished(task.getAttempt(), task.getTmId()));
                }
            }
        }
        return finished;
    }

    private static Map<TaskKey, Integer> attempts(Map<TaskKey, Finished> finished) {
        Map<TaskKey, Integer> attempts = new TreeMap<>();
        finished.forEach((task, done) -> attempts.put(task, done.attempt()));
        return attempts;
    }

    /** Tasks that had finished on {@code lostTm} ran again; all other finished tasks kept their attempt. */
    private static void assertOnlyOutputOf(String lostTm, Map<TaskKey, Finished> finished,
            Map<TaskKey, Integer> attempts) {
        List<TaskKey> rerun = new ArrayList<>();
        finished.forEach((task, done) -> {
            if (done.tmId().equals(lostTm)) {
                rerun.add(task);
                assertThat(attempts.get(task)).as("%s finished on the lost %s as #%d", task, lostTm, done.attempt())
                        .isGreaterThan(done.attempt());
            } else {
                assertThat(attempts.get(task)).as("%s finished on %s as #%d", task, done.tmId(), done.attempt())
                        .isEqualTo(done.attempt());
            }
        });
        assertThat(rerun).as("finished tasks on the lost TaskManager").isNotEmpty();
    }


    /** The job's partitions are gone from these TaskManagers (released or deleted with the job). */
    private void assertNoPartitionsLeft(String jobId, List<Integer> taskManagers) {
        await("no partitions of " + jobId + " left on TaskManagers " + taskManagers).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    for (int tm : taskManagers) {
                        if (!cluster.partitionFiles(tm, jobId).isEmpty()) {
                            return false;
                        }
                    }
                    return !Files.exists(cluster.jobDirectory(jobId));
                });
    }
}

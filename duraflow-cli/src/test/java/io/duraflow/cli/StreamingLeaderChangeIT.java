package io.duraflow.cli;

import static io.duraflow.cli.SideEffectRuns.fitForATest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.cli.demo.ExactOutput;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader change that costs a streaming job no running work, with real processes:
 * ZooKeeper, two JobManagers, two TaskManagers, the keyed-sum job with the exactly-once file sink
 * and a checkpoint every 300 ms. The leader is SIGKILLed while the job runs; the TaskManagers keep
 * its tasks running and report them, and the new leader adopts them from the latest completed
 * checkpoint: no task restarts, checkpoints go on with higher ids, the committed output is exact.
 * If a TaskManager dies too while no leader is up, adoption cannot be proven and the job restarts
 * from its latest checkpoint, as without adoption. Without adoption, a leader killed while a
 * checkpoint is in progress leaves the new leader to restore the latest completed one. A frozen
 * leader that thaws after the adoption is checked here for batch ({@link LeaderChangeAdoptionIT})
 * and, for streaming, over many seeds by
 * {@code io.duraflow.simulation.ClusterSimulationStreamingTest}.
 *
 * <p>One ZooKeeper server serves all tests. The two tests with adoption on share a cluster,
 * started by the first of them: each leaves two idle TaskManagers and a leader, and the JobManager
 * it killed is replaced by a new standby before the next; if a test left it otherwise (it failed),
 * the tests after it start a cluster each. The test without adoption starts its own cluster.
 */
class StreamingLeaderChangeIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    private static final String JOB = StallingKeyedSum.class.getName();
    private static final long RECORDS = 200_000;
    private static final long KEYS = 100_000;
    /** About 10 s of input: the job still runs when the new leader has taken over. */
    private static final String RATE = "20000";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static ZooKeeperServer zooKeeper;
    /** The cluster the tests with adoption share; null until the first of them starts it. */
    private static HaCluster shared;
    /** Whether a test left the shared cluster unfit for the next. */
    private static boolean sharedUnfit;
    private HaCluster cluster;

    @BeforeAll
    static void startZooKeeper() throws IOException {
        zooKeeper = ZooKeeperServer.shared();
        // Watched for the whole class, which the shared cluster serves, though a test starts it.
        LOGS.watch(sharedDir.resolve("cluster"));
    }

    @AfterAll
    static void stopSharedCluster() {
        if (shared != null && !sharedUnfit) {
            shared.close();
        }
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null && cluster != shared) {
            cluster.close();
        }
    }

    @Test
    void theLeaderKilledWhileAStreamingJobRunsRestartsNoTask(TestInfo test) throws Exception {
        cluster = startCluster();
        String jobId = "streaming-adopted";
        cluster.submit(jobId, JOB, params(jobId), 2);
        long before = awaitCompletedCheckpoints(jobId, 2);
        Map<TaskKey, Integer> attemptsBefore = TaskRuns.attempts(cluster.status(jobId));

        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        long killedAt = System.nanoTime();
        cluster.kill(leader);
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        cluster.awaitLog(next, "Job " + jobId + ": adopted all " + attemptsBefore.size() + " tasks",
                HaCluster.FAILOVER_TIMEOUT);
        JobCheckpoints after = await("a checkpoint of the new leader completes").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).ignoreException(CliException.class)
                .until(() -> cluster.checkpoints(jobId), c -> c.getCheckpointsList().stream()
                        .anyMatch(s -> s.getCheckpointId() > before && s.getStatus().equals("COMPLETED")));
        double firstCheckpointS = (System.nanoTime() - killedAt) / 1e9;

        assertThat(after.getCheckpointsList().stream().map(CheckpointSummary::getCheckpointId).toList())
                .as("checkpoint ids of the new leader").isSorted().doesNotHaveDuplicates()
                .allMatch(id -> id > before);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        assertThat(status.getRestarts()).as("restarts").isZero();
        assertThat(TaskRuns.attempts(status)).as("attempts at the end").isEqualTo(attemptsBefore);
        assertThat(TaskRuns.adopted(status)).as("tasks the new leader adopted").isEqualTo(attemptsBefore.size());
        assertThat(cluster.logText(next.name)).as("the new leader's log").doesNotContain("tasks restore checkpoint");
        assertExactlyOnceOutput(jobId);
        System.out.printf("%s: %d tasks adopted after the leader kill, none restarted; first checkpoint of the new"
                + " leader completed %.1f s after the kill%n", test.getDisplayName(), attemptsBefore.size(),
                firstCheckpointS);
    }

    @Test
    void aTaskManagerKilledWhileNoLeaderIsUpRestartsTheJobFromItsLatestCheckpoint(TestInfo test) throws Exception {
        cluster = startCluster();
        String jobId = "streaming-tm-lost-meanwhile";
        cluster.submit(jobId, JOB, params(jobId), 2);
        long before = awaitCompletedCheckpoints(jobId, 2);
        JobStatus running = cluster.status(jobId);
        Map<TaskKey, Integer> attemptsBefore = TaskRuns.attempts(running);
        String lostTm = running.getVertices(0).getTasks(0).getTmId();

        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.killTaskManager(cluster.taskManagerIndex(lostTm));
        cluster.addTaskManager();
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        assertThat(cluster.logText(next.name)).as("the new leader's log").containsPattern("Job " + jobId + ": v\\d+/\\d+ runs again as #1: region \\[0, 1\\] restarts from checkpoint")
                .contains("Job " + jobId + ": tasks restore checkpoint");
        TaskRuns.attempts(status).forEach((task, attempt) -> assertThat(attempt)
                .as("attempt of %s (#%d before)", task, attemptsBefore.get(task))
                .isGreaterThan(attemptsBefore.get(task)));
        assertExactlyOnceOutput(jobId);
        System.out.printf("%s: checkpoint %d or later restored after a TaskManager died with the leader%n",
                test.getDisplayName(), before);
    }

    /**
     * The leader JobManager dies while checkpoint n is in progress, with adoption off
     * ({@code taskmanager.leader-loss.timeout: 0}: the TaskManagers cancel their tasks), under
     * {@link StallingKeyedSum}, whose "Sum per key" subtask 0 holds checkpoint n open (see
     * {@link StalledCheckpoints}). The new leader restores the latest checkpoint in the completed
     * store at the kill; its checkpoint ids continue above every id the old leader used; the
     * directory the old leader left for checkpoint n is deleted; the job finishes with
     * exactly-once output.
     */
    @Test
    void theLeaderKilledDuringACheckpointWithoutAdoptionRestoresTheLatestCompleted() throws Exception {
        StalledCheckpoints stalled = new StalledCheckpoints(tempDir);
        Map<String, String> config = new LinkedHashMap<>(stalled.checkpointing());
        config.put("taskmanager.slots", "2");
        // The stalled subtask blocks until its process dies: a task kept through the leader change
        // would hold it forever.
        config.put("taskmanager.leader-loss.timeout", "0");
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, 2, 2, config);
        String jobId = "leader-killed-during-checkpoint";
        cluster.submit(jobId, StalledCheckpoints.STALLING, stalled.stallingParams(jobId), 2);

        long held = stalled.awaitStall(() -> cluster.status(jobId)).checkpointId();
        List<Path> acknowledged = stalled.awaitAcknowledgedFiles(jobId, held, () -> cluster.checkpoints(jobId), false);
        int committed = stalled.awaitCommittedOutput(jobId);
        long latest = StalledCheckpoints.assertHeldOpen(cluster.checkpoints(jobId), held);
        // Whoever leads now (on a loaded machine a ZooKeeper session may have expired before).
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        LeaderInfo oldSession = cluster.leaderInfo();
        cluster.kill(first);
        // The store as the dead leader left it (no one writes it until the next leader recovers the job).
        List<Long> storedAtTheKill = StalledCheckpoints.completedStore(cluster.jobDirectory(jobId));
        List<Long> triggeredBeforeTheKill = StalledCheckpoints.triggeredIds(StalledCheckpoints.jobManagerLogs(cluster),
                jobId);
        HaCluster.JobManager second = cluster.awaitNewLeader(first, oldSession, HaCluster.FAILOVER_TIMEOUT);

        assertThat(storedAtTheKill).as("completed checkpoints in the HA store at the kill").containsExactly(latest);
        assertThat(triggeredBeforeTheKill).as("checkpoints triggered before the kill").last().isEqualTo(held);
        JobCheckpoints after = StalledCheckpoints.awaitCheckpointAfter(held, () -> cluster.checkpoints(jobId));
        assertThat(after.getRestoredFromId()).as("what the new leader restored").isEqualTo(latest);
        assertThat(cluster.logText(second.name)).contains("Job " + jobId + ": tasks restore checkpoint " + latest
                + " of job " + jobId);
        assertThat(after.getCheckpointsList()).as("the new leader's checkpoints").isNotEmpty()
                .allMatch(c -> c.getCheckpointId() > held);
        StalledCheckpoints.assertIdsIncrease(after);
        stalled.awaitNoFilesOfTheAbortedCheckpoint(jobId, held, acknowledged, () -> cluster.status(jobId));

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        StalledCheckpoints.assertFinished(result, 0);
        stalled.assertExactlyOnceOutput(jobId);
        List<Long> triggered = StalledCheckpoints.triggeredIds(StalledCheckpoints.jobManagerLogs(cluster), jobId);
        assertThat(triggered).as("checkpoints triggered by either JobManager, in time order").isSorted()
                .doesNotHaveDuplicates().startsWith(triggeredBeforeTheKill.toArray(Long[]::new));
        assertThat(triggered.subList(triggeredBeforeTheKill.size(), triggered.size()))
                .as("checkpoints triggered after the kill").isNotEmpty().allMatch(id -> id > held);
        StalledCheckpoints.awaitGone(stalled.checkpoints().resolve(jobId),
                "the finished job's checkpoints (retention delete-on-cancellation)");
        System.out.printf("%s: killed %s during checkpoint %d, %,d lines committed; %s took over, restored %d%n",
                jobId, first, held, committed, second.name, after.getRestoredFromId());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The shared cluster with adoption, with a new standby in place of the JobManager the last
     * test killed; or a cluster of this test's own once a test left the shared one unfit.
     */
    private HaCluster startCluster() throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "300ms");
        config.put("execution.checkpointing.dir", sharedDir.resolve("checkpoints").toString());
        config.put("taskmanager.slots", "2");
        // The TaskManager killed with the leader is not reported: the new leader decides without it soon.
        config.put("jobmanager.adoption.report-timeout", "3s");
        if (shared != null && !sharedUnfit && !fitForATest(shared)) {
            System.out.println("The shared cluster is unfit; the tests after this one start their own");
            shared.close();
            sharedUnfit = true;
        }
        if (sharedUnfit) {
            return HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, 2, 2, config);
        }
        if (shared == null) {
            shared = HaCluster.start(sharedDir.resolve("cluster"), zooKeeper, 2, 2, config);
            return shared;
        }
        while (shared.liveJobManagers().size() < 2) {
            shared.startJobManager().address();
        }
        shared.awaitTaskManagers(2);
        return shared;
    }

    private Map<String, String> params(String jobId) {
        return Map.of("records", Long.toString(RECORDS), "keys", Long.toString(KEYS), "rate", RATE,
                "output", output(jobId).toString());
    }

    private Path output(String jobId) {
        return tempDir.resolve("output").resolve(jobId);
    }

    /** Waits until {@code count} checkpoints completed; returns the newest one's id. */
    private long awaitCompletedCheckpoints(String jobId, int count) {
        JobCheckpoints checkpoints = await(count + " checkpoints of " + jobId + " complete").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).ignoreException(CliException.class)
                .until(() -> cluster.checkpoints(jobId), c -> c.getCheckpointsList().stream()
                        .filter(s -> s.getStatus().equals("COMPLETED")).count() >= count);
        return checkpoints.getCheckpointsList().stream().filter(s -> s.getStatus().equals("COMPLETED"))
                .mapToLong(CheckpointSummary::getCheckpointId).max().orElseThrow();
    }

    private void assertExactlyOnceOutput(String jobId) throws Exception {
        List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output(jobId)), RECORDS, KEYS);
        assertThat(problems).as("problems of the committed output in %s", output(jobId)).isEmpty();
    }
}

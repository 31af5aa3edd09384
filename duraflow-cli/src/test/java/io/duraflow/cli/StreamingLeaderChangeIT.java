package io.duraflow.cli;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
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
 * from its latest checkpoint, as without adoption. A frozen leader that thaws after the adoption
 * is checked here for batch ({@link LeaderChangeAdoptionIT}) and, for streaming, over many seeds by
 * {@code io.duraflow.simulation.ClusterSimulationTest}.
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
    Path tempDir;

    private HaCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
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

    // ------------------------------------------------------------------ helpers

    private HaCluster startCluster() throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "300ms");
        config.put("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString());
        config.put("taskmanager.slots", "2");
        // The TaskManager killed with the leader is not reported: the new leader decides without it soon.
        config.put("jobmanager.adoption.report-timeout", "3s");
        return HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), null, 2, 2, config, null);
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

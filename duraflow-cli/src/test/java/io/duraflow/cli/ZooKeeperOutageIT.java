package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.RecoveryDemo;
import io.duraflow.jobmanager.Dispatcher;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8: ZooKeeper is SIGKILLed while a batch job runs and restarted on its data directory once
 * every session has timed out. The JobManager loses leadership and wins it again in a new
 * session; the TaskManagers must register in that session before it deploys to them (before,
 * its deployments were refused with PERMISSION_DENIED, burning restarts), and the work finished
 * before the outage survives it, as it survives a SIGKILL of the leader.
 */
class ZooKeeperOutageIT {
    private static final String JOB = StagedJob.class.getName();
    private static final Map<String, String> PARAMS = Map.of("records", "4000000", "keys", "10000");
    private static final int PARALLELISM = 4;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private HaCluster.ZooKeeper zooKeeper;
    private Process restartedZooKeeper;
    private HaCluster cluster;

    private record Task(int vertex, int subtask) {}

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (restartedZooKeeper != null) {
            restartedZooKeeper.destroyForcibly();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void finishedWorkSurvivesAZooKeeperOutageAndNoDeploymentIsRefused() throws Exception {
        Path zkDir = LOGS.watch(tempDir.resolve("zk"));
        zooKeeper = HaCluster.ZooKeeper.start(zkDir);
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, 1, 2,
                Map.of("taskmanager.slots", "1"), null);
        HaCluster.JobManager jm = cluster.leader().orElseThrow();
        String jobId = "zookeeper-outage";
        cluster.submit(jobId, JOB, PARAMS, PARALLELISM);
        JobStatus before = await("half of the sources finished").atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(20)).ignoreException(CliException.class)
                .until(() -> cluster.status(jobId), s -> {
                    assertThat(s.getState()).isEqualTo(JobState.JOB_RUNNING);
                    return s.getVertices(StagedJob.SOURCE).getFinished() >= 4;
                });
        Map<Task, Integer> finished = finishedTasks(before);
        awaitFinishesLogged(jobId, finished);
        int standBys = cluster.count(jm.name, "stands by");
        int[] losses = {cluster.count("taskmanager-0", "Lost the JobManager"),
            cluster.count("taskmanager-1", "Lost the JobManager")};

        zooKeeper.close();  // SIGKILL
        await("the JobManager loses leadership").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.count(jm.name, "stands by") > standBys);
        // Both TaskManagers give the JobManager up after the heartbeat timeout (5 s), which is
        // longer than the ZooKeeper session timeout (3 s): every session has expired by then.
        await("both TaskManagers lose the JobManager").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.count("taskmanager-0", "Lost the JobManager") > losses[0]
                        && cluster.count("taskmanager-1", "Lost the JobManager") > losses[1]);
        String quorum = zooKeeper.quorum();
        String port = quorum.substring(quorum.lastIndexOf(':') + 1);
        restartedZooKeeper = ChildJvm.start(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                List.of("zookeeper", "--port", port, "--data-dir", zkDir.resolve("zookeeper").toString()), zkDir,
                zkDir.resolve("log/zookeeper-restarted.log"));

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        assertExactResult(result);
        assertThat(cluster.jobManagerLines("belongs to session")).as("deployments refused by TaskManagers").isEmpty();
        assertThat(status.getRestarts()).as("restarts burned").isZero();
        Map<Task, Integer> attempts = finalAttempts(status);
        finished.forEach((task, attempt) -> assertThat(attempts.get(task))
                .as("attempt of %s, finished as #%d before the outage", task, attempt).isEqualTo(attempt));
        assertThat(cluster.count(jm.name, "leads (session")).as("the same JobManager led again after the outage")
                .isGreaterThanOrEqualTo(2);
    }

    private void awaitFinishesLogged(String jobId, Map<Task, Integer> finished) {
        Path log = cluster.jobDirectory(jobId).resolve(Dispatcher.JOB_EVENTS_DIRECTORY);
        await("the event log of " + jobId + " records " + finished.keySet()).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    Set<Task> logged = new HashSet<>();
                    for (JobEvent event : JobEventReader.readAll(log).events()) {
                        if (event.hasExecutionFinished()) {
                            var done = event.getExecutionFinished();
                            Task task = new Task(done.getVertex(), done.getSubtask());
                            if (finished.containsKey(task) && finished.get(task) == done.getAttempt()) {
                                logged.add(task);
                            }
                        }
                    }
                    return logged.equals(finished.keySet());
                });
    }

    private static Map<Task, Integer> finishedTasks(JobStatus status) {
        Map<Task, Integer> finished = new HashMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                TaskStatus task = vertex.getTasks(subtask);
                if (task.getState().equals("FINISHED")) {
                    finished.put(new Task(vertex.getId(), subtask), task.getAttempt());
                }
            }
        }
        return finished;
    }

    private static Map<Task, Integer> finalAttempts(JobStatus status) {
        Map<Task, Integer> attempts = new HashMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                attempts.put(new Task(vertex.getId(), subtask), vertex.getTasks(subtask).getAttempt());
            }
        }
        return attempts;
    }

    private static void assertExactResult(JobResult result) {
        Map<Long, Long> sums = ExactResults.toMap(TestCluster.decode(result, JOB, PARAMS, PARALLELISM)
                .get(StagedJob.RESULT));
        long[] expected = RecoveryDemo.expected(Long.parseLong(PARAMS.get("records")),
                Long.parseLong(PARAMS.get("keys")));
        Map<Long, Long> expectedSums = new HashMap<>();
        for (int bucket = 0; bucket < expected.length; bucket++) {
            expectedSums.put((long) bucket, expected[bucket]);
        }
        assertSameEntries("sums per bucket", sums, expectedSums);
    }
}

package io.duraflow.cli;

import static io.duraflow.cli.StagedJobRuns.JOB;
import static io.duraflow.cli.StagedJobRuns.JOB_TIMEOUT;
import static io.duraflow.cli.StagedJobRuns.PARALLELISM;
import static io.duraflow.cli.StagedJobRuns.PARAMS;
import static io.duraflow.cli.StagedJobRuns.assertExactResult;
import static io.duraflow.cli.StagedJobRuns.awaitFinishesLogged;
import static io.duraflow.cli.StagedJobRuns.finalAttempts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: ZooKeeper is SIGKILLed while a batch job runs and restarted on its data directory once
 * every session has timed out. The JobManager loses leadership and wins it again in a new
 * session; the TaskManagers must register in that session before it deploys to them (before,
 * its deployments were refused with PERMISSION_DENIED, burning restarts), and the work finished
 * before the outage survives it, as it survives a SIGKILL of the leader.
 */
class ZooKeeperOutageIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private ZooKeeperServer zooKeeper;
    private Process restartedZooKeeper;
    private HaCluster cluster;

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
        zooKeeper = ZooKeeperServer.start(zkDir);
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, 1, 2,
                Map.of("taskmanager.slots", "1"));
        HaCluster.JobManager jm = cluster.leader().orElseThrow();
        String jobId = "zookeeper-outage";
        cluster.submit(jobId, JOB, PARAMS, PARALLELISM);
        JobStatus before = await("half of the sources finished").atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(20)).ignoreException(CliException.class)
                .until(() -> cluster.status(jobId), s -> {
                    assertThat(s.getState()).isEqualTo(JobState.JOB_RUNNING);
                    return s.getVertices(StagedJob.SOURCE).getFinished() >= 4;
                });
        Map<TaskKey, Integer> finished = TaskRuns.finishedAttempts(before);
        awaitFinishesLogged(cluster, jobId, finished);
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
        assertExactResult(result);
        assertThat(cluster.jobManagerLines("belongs to session")).as("deployments refused by TaskManagers").isEmpty();
        assertThat(status.getRestarts()).as("restarts burned").isZero();
        Map<TaskKey, Integer> attempts = finalAttempts(status);
        finished.forEach((task, attempt) -> assertThat(attempts.get(task))
                .as("attempt of %s, finished as #%d before the outage", task, attempt).isEqualTo(attempt));
        assertThat(cluster.count(jm.name, "leads (session")).as("the same JobManager led again after the outage")
                .isGreaterThanOrEqualTo(2);
    }
}

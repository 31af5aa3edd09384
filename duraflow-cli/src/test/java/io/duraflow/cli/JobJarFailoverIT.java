package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.client.CollectedResults;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job whose classes exist only in its jar survives its leader: the leader is SIGKILLed while the
 * job runs, and the standby, which never saw the upload, runs it on from the jar it reads from the
 * HA storage; a TaskManager joins after the submission, and runs what goes to it from the jar too.
 */
class JobJarFailoverIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void aNewLeaderRunsAJobFromItsStoredJarAndALateTaskManagerFetchesIt() throws Exception {
        Path jar = TestJars.build(tempDir.resolve("slow-count.jar"), TestJars.countByBucket(7), Map.of());
        JobJar checked = JobJar.open(jar);
        try (HaCluster cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), ZooKeeperServer.shared(), 2, 1,
                Map.of())) {
            HaCluster.JobManager leader = cluster.leader().orElseThrow();
            Map<String, String> params = Map.of("n", "3000000");
            String jobId = cluster.submitJar(SubmitJobRequest.newBuilder().setJobId("from-jar")
                    .setJobClass("com.example.app.CountByBucket").putAllParams(params).setParallelism(4)
                    .setArtifact(JobArtifact.newBuilder().setSha256(checked.sha256()).setFileName(checked.fileName())
                            .setSize(checked.size()))
                    .build(), jar);
            await("tasks of the job run").atMost(TIMEOUT).until(() -> cluster.status(jobId).getVerticesList().stream()
                    .anyMatch(v -> v.getRunning() > 0));

            cluster.startTaskManager();  // joins after the submission: fetches the jar when a task goes to it
            cluster.killLeaderAndAwaitTheNext(leader);
            JobResult result = cluster.awaitResult(jobId, TIMEOUT);

            assertThat(result.getStatus().getState()).as("%s", result.getStatus().getFailure())
                    .isEqualTo(JobState.JOB_FINISHED);
            try (JobClassLoader loader = new JobClassLoader("test", jar, getClass().getClassLoader())) {
                List<Object> counts = CollectedResults.decode(result, JobPlans.build(loader,
                        "com.example.app.CountByBucket", params, 4, RuntimeMode.AUTOMATIC)).get("counts");
                Map<Object, Object> byBucket = new HashMap<>();
                counts.forEach(record -> byBucket.put(((io.duraflow.api.types.Tuple2<?, ?>) record).f0(),
                        ((io.duraflow.api.types.Tuple2<?, ?>) record).f1()));
                for (long bucket = 0; bucket < 7; bucket++) {
                    assertThat(byBucket.get(bucket)).as("bucket %d", bucket)
                            .isEqualTo((3_000_000L - bucket + 6) / 7);
                }
            }
            assertThat(TestCluster.logTails(tempDir.resolve("cluster"), 10_000)).as("TaskManagers fetched the jar")
                    .contains("Fetched jar slow-count.jar of job from-jar");
            cluster.awaitRegisteredTaskManagers(2, TIMEOUT);
        }
    }
}

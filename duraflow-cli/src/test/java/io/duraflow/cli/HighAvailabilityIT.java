package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.types.Tuple2;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.jobstore.CollectedData;
import io.duraflow.jobstore.FileSystemJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.VertexStatus;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * JobManager high availability and the job result store with real processes: a ZooKeeper
 * server, two JobManagers and two TaskManagers on loopback. The leader is SIGKILLed (or
 * SIGSTOPped) at chosen moments of a job's life (failpoints make those moments exact), and each
 * test checks that the standby takes over and that the job's outcome is right:
 * <ul>
 *   <li>the exact result (sums per key of {@link SideEffectJob}),
 *   <li>exactly one result entry, CLEAN in the end, and "result stored" logged once,
 *   <li>cleanup complete: no job graph, no job directory, no partitions on the TaskManagers,
 *   <li>how often the job's side effect happened: the lines its sink tasks append to a marker file.
 * </ul>
 * One ZooKeeper server serves all tests (each cluster has its own ZooKeeper root). Batch job
 * recovery is on (the default with high availability) unless a test says otherwise; the scenarios
 * kill the leader before any sink task started or after the job ended, where it keeps no work.
 */
class HighAvailabilityIT {
    private static final String JOB = SideEffectJob.class.getName();
    private static final int PARALLELISM = 2;
    private static final int SINKS = 2;
    private static final long NUMBERS = 20_000;
    private static final long KEYS = 10;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration FAILPOINT_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static HaCluster.ZooKeeper zooKeeper;
    private HaCluster cluster;
    private String testName;
    private final long started = System.nanoTime();

    @BeforeAll
    static void startZooKeeper() throws IOException {
        zooKeeper = HaCluster.ZooKeeper.start(LOGS.watch(sharedDir.resolve("zk")));
    }

    @AfterAll
    static void stopZooKeeper() {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        System.out.printf("%s: %.1f s%n", testName, (System.nanoTime() - started) / 1e9);
    }

    private HaCluster startCluster(TestInfo test, String failpoint) throws Exception {
        return startCluster(test, failpoint, Map.of());
    }

    /** ZooKeeper (shared), 2 JobManagers (the first leads, with {@code failpoint} unless null), 2 TaskManagers. */
    private HaCluster startCluster(TestInfo test, String failpoint, Map<String, String> overrides) throws Exception {
        testName = test.getDisplayName();
        assertThat(zooKeeper.isAlive()).as("the shared ZooKeeper server runs").isTrue();
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, 2, 2, overrides, failpoint);
        return cluster;
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * (a) The leader dies while the job's sources run. The standby takes over and runs the job
     * again from the start; the first run left no side effect (no sink task had started), the new
     * leader stores the result once and cleans up. On the client's side, 'duraflow run' follows
     * its job through the failover and prints the result once. Besides, from the moment the new
     * leader is published in ZooKeeper, the test asks it for the job's status every few
     * milliseconds, as a client that follows the leader would: it must know the job (recovered
     * from the job graph store) and never answer that it does not exist.
     */
    @Test
    void clientsFollowTheJobThroughAFailover(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, null);
        addLargeDirtyResults();
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "followed-through-failover";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(jobId);
        List<String> run = new ArrayList<>(List.of("run", JOB, "--job-id", jobId, "--parallelism",
                Integer.toString(PARALLELISM)));
        params.forEach((k, v) -> run.addAll(List.of("--param", k + "=" + v)));
        run.addAll(cluster.clientOptions());
        Cli.Running attached = Cli.start(LOGS.watch(tempDir), run.toArray(String[]::new));

        awaitSourcesRunningWithoutSinks(jobId);
        LeaderInfo oldLeader = cluster.leaderInfo();
        cluster.kill(first);
        HaCluster.JobManager second = cluster.awaitNewLeader(first, oldLeader, HaCluster.FAILOVER_TIMEOUT,
                Duration.ofMillis(1));
        List<String> answers = askUntil(second, "the new leader reports the job", stub -> stub
                .getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build()).getState().name(), code -> false);
        Cli.Result result = attached.await(CLI_TIMEOUT);

        assertThat(answers).as("answers of the new leader %s from the moment it was published", second.name)
                .noneMatch(answer -> answer.startsWith("NOT_FOUND"));
        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(count(result.stdout(), "Job " + jobId + " (SideEffectJob) FINISHED"))
                .as("results printed by %s", result).isEqualTo(1);
        assertThat(result.stdout()).contains(SideEffectJob.RESULT + ": " + KEYS + " records");
        assertFinishedWithExactSums(cluster.result(jobId), params);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(second, jobId);
        assertThat(cluster.logText(second.name)).contains("Recovering job " + jobId);
    }

    /**
     * (a, resubmission) A client whose submission got no answer because the leader died submits
     * again with the same job id (ClusterClient retries until it finds the new leader), and the
     * new leader also recovers the stored job graph of that id: the job must still run once.
     */
    @Test
    void submissionRetriedThroughAFailoverRunsTheJobOnce(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, null);
        addLargeDirtyResults();
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "resubmitted-through-failover";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        awaitSourcesRunningWithoutSinks(jobId);
        LeaderInfo oldLeader = cluster.leaderInfo();
        cluster.kill(first);
        String answer;
        try {
            answer = "accepted as " + cluster.submit(jobId, JOB, params, PARALLELISM);
        } catch (CliException e) {
            answer = e.getMessage();
        }
        HaCluster.JobManager second = cluster.awaitNewLeader(first, oldLeader, HaCluster.FAILOVER_TIMEOUT);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertThat(cluster.count(second.name, "Job " + jobId + " (SideEffectJob) running"))
                .as("JobMasters that %s started for the job (answer to the resubmission: %s)", second.name, answer)
                .isEqualTo(1);
        assertThat(answer).as("answer to the resubmission").matches("accepted as " + jobId
                + "|job " + jobId + " is already running.*");
        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(second, jobId);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
    }

    /**
     * (a, resubmission, by address) As before, but the client sends the submission to the new
     * leader's address directly (e.g. 'duraflow run --jobmanager host:port'), from the moment
     * the old leader died until the answer is not UNAVAILABLE. The new leader answers as soon as
     * it leads, before it recovered the stored job graph (it publishes itself in ZooKeeper only
     * after that): it must not start a second JobMaster for the job (it turns requests away
     * until it recovered the stored jobs).
     */
    @Test
    void submissionByAddressDuringTheNewLeadersRecoveryRunsTheJobOnce(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, null);
        addLargeDirtyResults();
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        HaCluster.JobManager standby = other(first);
        String jobId = "resubmitted-during-recovery";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(jobId);
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(JOB)
                .putAllParams(params).setParallelism(PARALLELISM).build();
        cluster.submit(jobId, JOB, params, PARALLELISM);

        awaitSourcesRunningWithoutSinks(jobId);
        cluster.kill(first);
        List<String> answers = askUntil(standby, "the standby answers the submission", stub -> {
            stub.submitJob(request);
            return "accepted";
        }, code -> code != io.grpc.Status.Code.UNAVAILABLE);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertThat(cluster.count(standby.name, "Job " + jobId + " (SideEffectJob) running"))
                .as("JobMasters that %s started for the job (answers to the resubmission: %s)", standby.name,
                        answers).isEqualTo(1);
        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(standby, jobId);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
    }

    /**
     * (b) The leader dies after the job ended but before its DIRTY result was written: nothing
     * records that the job ended, so the new leader runs it again; with batch job recovery off,
     * from the start (a second run's side effects). Exactly one result.
     */
    @Test
    void leaderKilledBeforeTheDirtyResult(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, "dispatcher.before-dirty-result",
                Map.of("execution.batch.job-recovery.enabled", "off"));
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "killed-before-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        cluster.awaitFailpoint(first, FAILPOINT_TIMEOUT);
        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint").isEmpty();
        assertThat(cluster.jobGraphFile(jobId)).exists();
        assertThat(SideEffectJob.markerLines(marker)).as("marker lines of the first run").hasSize(SINKS);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(second, jobId);
        assertThat(cluster.logText(second.name))
                .contains("Recovering job " + jobId + " (" + JOB + "): it runs again from the start");
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: one per run").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(2));
    }

    /**
     * (b, batch job recovery) As (b), with batch job recovery on (the default with high
     * availability): the new leader finds in the job event log that every task finished, keeps
     * that work (no task runs again, so no second side effect), and the job ends FINISHED with the
     * exact result (the collected records come from the event log) and exactly one result entry.
     */
    @Test
    void leaderKilledBeforeTheDirtyResultWithBatchJobRecovery(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, "dispatcher.before-dirty-result");
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "recovered-before-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        cluster.awaitFailpoint(first, FAILPOINT_TIMEOUT);
        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint").isEmpty();
        assertThat(SideEffectJob.markerLines(marker)).as("marker lines of the first run").hasSize(SINKS);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(second, jobId);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: nothing ran again").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
    }

    /**
     * (c) The leader dies after it wrote the DIRTY result, before cleanup: the new leader must
     * not run the job again, and must finish the cleanup (the entry becomes CLEAN). The result it
     * serves is the one the first leader stored.
     */
    @Test
    void leaderKilledAfterTheDirtyResult(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, "dispatcher.before-cleanup");
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "killed-after-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        cluster.awaitFailpoint(first, FAILPOINT_TIMEOUT);
        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint")
                .containsExactly(jobId + ".dirty.json");
        assertThat(cluster.jobGraphFile(jobId)).exists();
        assertThat(probe).exists();
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        cluster.awaitLog(second, "Job " + jobId + " ended (FINISHED) under an earlier leader; finishing its"
                + " cleanup, not running it again", Duration.ofSeconds(1));
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(first.name + ": "));
        assertNotRunBy(second, jobId);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: the one run").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
    }

    /**
     * (d) The leader dies after the job's entry was marked CLEAN: the new leader runs nothing;
     * 'duraflow result' shows the result, and submitting the same job id again does not run it
     * but says it already ended, with exit code 0 (it FINISHED).
     */
    @Test
    void leaderKilledAfterTheCleanResult(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, "dispatcher.after-clean");
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "killed-after-clean";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        cluster.awaitFailpoint(first, FAILPOINT_TIMEOUT);
        assertCleanedUp(jobId, probe);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);
        cluster.awaitTaskManagers(2);

        Cli.Result shown = duraflow(concat(List.of("result", jobId), cluster.clientOptions()));
        assertThat(shown.exitCode()).as("%s", shown).isZero();
        assertThat(shown.stdout()).as("%s", shown).contains("Job " + jobId + " (SideEffectJob) FINISHED")
                .contains(SideEffectJob.RESULT + ": " + KEYS + " records").contains(expectedLine(3, params));

        List<String> again = new ArrayList<>(List.of("run", JOB, "--job-id", jobId, "--parallelism",
                Integer.toString(PARALLELISM)));
        params.forEach((k, v) -> again.addAll(List.of("--param", k + "=" + v)));
        Cli.Result resubmitted = duraflow(concat(again, cluster.clientOptions()));
        assertThat(resubmitted.exitCode()).as("%s", resubmitted).isZero();
        assertThat(resubmitted.stdout()).as("%s", resubmitted)
                .contains("job " + jobId + " already ended as FINISHED").doesNotContain("Submitted job");

        assertFinishedWithExactSums(cluster.result(jobId), params);
        assertCleanedUp(jobId, probe);
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(first.name + ": "));
        assertNotRunBy(second, jobId);
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: the one run").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
    }

    /**
     * (d, large result) A large result (here about 16 MB collected by one subtask; the JobManager
     * accepts up to collect.max-bytes, 64 MiB by default) must be readable from the job result
     * store by the next leader just like a small one.
     */
    @Test
    void largeResultIsReadableAfterAFailover(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, "dispatcher.after-clean");
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "large-result";
        long keys = 2_000_000;
        Map<String, String> params = new LinkedHashMap<>();
        params.put("marker", tempDir.resolve("marker").toString());
        params.put("numbers", Long.toString(keys));
        params.put("keys", Long.toString(keys));
        params.put("sinks", "1");
        cluster.submit(jobId, JOB, params, PARALLELISM);
        cluster.awaitFailpoint(first, JOB_TIMEOUT);
        JobResult atFirst = cluster.result(jobId);
        assertThat(atFirst.getStatus().getState()).isEqualTo(JobState.JOB_FINISHED);
        long bytes = atFirst.getCollectedList().stream().mapToLong(c -> c.getData().size()).sum();

        cluster.killLeaderAndAwaitTheNext(first);
        JobResult result = await("the new leader serves the result").atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(100)).ignoreException(CliException.class)
                .until(() -> cluster.result(jobId), r -> r != null);

        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state of the %,d-byte result read back, failure '%s'", bytes,
                status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        List<Object> sums = TestCluster.decode(result, JOB, params, PARALLELISM).get(SideEffectJob.RESULT);
        assertThat(sums).hasSize((int) keys);
        // numbers == keys: every key k has the single number k.
        assertThat(sums).allSatisfy(record -> assertThat(((Tuple2<?, ?>) record).f0())
                .isEqualTo(((Tuple2<?, ?>) record).f1()));
        assertThat(sums.stream().map(r -> ((Tuple2<?, ?>) r).f0()).distinct().count())
                .isEqualTo(keys);
    }

    /**
     * (e) The leader is frozen (SIGSTOP) while the job runs, long enough for its ZooKeeper session
     * to expire: the standby leads, the TaskManagers follow it, and it runs the job. Then the old
     * leader thaws (SIGCONT). It must find out that it was deposed and stand by without writing a
     * result or taking the TaskManagers back; the job finishes once, with the right result.
     */
    @Test
    void deposedLeaderThawsWhileTheNewLeaderRunsTheJob(TestInfo test) throws Exception {
        HaCluster cluster = startCluster(test, null);
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "deposed-leader";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 250);
        Path probe = createJobDirectory(jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);
        awaitSourcesRunningWithoutSinks(jobId);

        LeaderInfo oldLeader = cluster.leaderInfo();
        cluster.pause(first);
        long paused = System.nanoTime();
        HaCluster.JobManager second;
        int resumedAtLogLength;
        try {
            second = cluster.awaitNewLeader(first, oldLeader, HaCluster.FAILOVER_TIMEOUT);
            // The new leader runs the job, on the TaskManagers that followed it. (Asked directly: the
            // cluster's client may still wait for an answer from the frozen leader.)
            await("the job runs at the new leader").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(50))
                    .ignoreException(CliException.class).until(() -> {
                        ClusterOverview overview = cluster.overviewOf(second);
                        return overview.getTaskManagersCount() == 2 && TestCluster.vertex(
                                cluster.statusAt(second, jobId), SideEffectJob.SOURCE).getRunning() > 0;
                    });
        } finally {
            resumedAtLogLength = cluster.logText(first.name).length();
            cluster.resume(first);
        }
        double frozen = (System.nanoTime() - paused) / 1e9;
        long resumed = System.nanoTime();
        JobStatus atResume = cluster.statusAt(second, jobId);
        cluster.awaitLog(first, "stands by", Duration.ofSeconds(30));
        double deposedAfter = (System.nanoTime() - resumed) / 1e9;

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertThat(JobRunner.isTerminal(atResume.getState())).as("the job still ran when the old leader thawed: %s",
                JobRunner.progressLine(atResume)).isFalse();

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(jobId, probe);
        assertResultStoredOnceBy(second, jobId);
        // Frozen before any sink task started; the thawed leader cannot have started one.
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask").hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));

        // The thawed leader stood by and took nothing over; the TaskManagers stay with the new leader,
        // also after more than a heartbeat timeout.
        await("a heartbeat timeout passed since the old leader thawed").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> System.nanoTime() - resumed > 6_000_000_000L);
        String afterThaw = cluster.logText(first.name).substring(resumedAtLogLength);
        assertThat(afterThaw).as("%s's log after SIGCONT", first.name).contains("stands by")
                .doesNotContain("registered with").doesNotContain("leads (session")
                .doesNotContain("result stored").doesNotContain("Published leader");
        assertThat(cluster.logText(first.name)).doesNotContain("Job " + jobId + " ended as");
        assertThatThrownBy(() -> cluster.rawOverview(first)).as("the old leader answers as a standby")
                .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNAVAILABLE")
                .hasMessageContaining(first.address() + " is not the leader");
        ClusterOverview overview = cluster.overviewOf(second);
        assertThat(overview.getTaskManagersList()).as("TaskManagers at the new leader").hasSize(2);
        assertThat(overview.getJmSessionId()).isEqualTo(cluster.leaderInfo().sessionId());
        for (int i = 0; i < cluster.taskManagerCount(); i++) {
            List<String> registrations = cluster.logText("taskmanager-" + i).lines()
                    .filter(line -> line.contains(" registered at JobManager")).toList();
            assertThat(registrations).as("registrations of taskmanager-%d", i).isNotEmpty();
            assertThat(registrations.get(registrations.size() - 1)).as("last registration of taskmanager-%d", i)
                    .contains(second.address());
        }
        System.out.printf("%s: frozen %.1f s; the thawed leader stood by %.1f s after SIGCONT%n", testName, frozen,
                deposedAfter);
    }

    /**
     * (f) Without high availability: a local cluster runs a job, is stopped and started again;
     * the result is still there ('duraflow result'), and the job id cannot run again.
     */
    @Test
    void resultSurvivesARestartOfTheWholeCluster(TestInfo test) throws Exception {
        testName = test.getDisplayName();
        Path workDir = LOGS.watch(tempDir.resolve("local"));
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        String jobId = "survives-restart";
        List<String> cluster = List.of("--work-dir", workDir.toString(), "-D", "jobmanager.rpc.port=0", "-D",
                "heartbeat.interval=500ms");
        List<String> run = new ArrayList<>(List.of("run", JOB, "--job-id", jobId, "--parallelism",
                Integer.toString(PARALLELISM), "--work-dir", workDir.toString()));
        params.forEach((k, v) -> run.addAll(List.of("--param", k + "=" + v)));
        Map<String, Long> pids = new TreeMap<>();
        try {
            Cli.Result start = duraflow(concat(List.of("local", "start", "--taskmanagers", "1"), cluster));
            pids.putAll(pids(workDir));
            assertThat(start.exitCode()).as("%s", start).isZero();
            Cli.Result ran = duraflow(run.toArray(String[]::new));
            assertThat(ran.exitCode()).as("%s", ran).isZero();
            assertThat(count(ran.stdout(), "Job " + jobId + " (SideEffectJob) FINISHED")).as("results printed by %s",
                    ran).isEqualTo(1);
            Path results = workDir.resolve("ha/default/job-result-store");
            await("the result is marked clean").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> Files.exists(results.resolve(jobId + ".clean.json")));

            Cli.Result stop = duraflow("local", "stop", "--work-dir", workDir.toString());
            assertThat(stop.exitCode()).as("%s", stop).isZero();
            await("the cluster's processes are gone").atMost(Duration.ofSeconds(15))
                    .until(() -> pids.values().stream().noneMatch(HighAvailabilityIT::alive));
            Cli.Result restart = duraflow(concat(List.of("local", "start", "--taskmanagers", "1"), cluster));
            pids.putAll(pids(workDir));
            assertThat(restart.exitCode()).as("%s", restart).isZero();

            Cli.Result shown = duraflow("result", jobId, "--work-dir", workDir.toString());
            assertThat(shown.exitCode()).as("%s", shown).isZero();
            assertThat(shown.stdout()).as("%s", shown).contains("Job " + jobId + " (SideEffectJob) FINISHED")
                    .contains(SideEffectJob.RESULT + ": " + KEYS + " records").contains(expectedLine(7, params));
            Cli.Result again = duraflow(run.toArray(String[]::new));
            assertThat(again.exitCode()).as("%s", again).isZero();
            assertThat(again.stdout()).as("%s", again).contains("job " + jobId + " already ended as FINISHED")
                    .doesNotContain("Submitted job");
            assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: the one run").hasSize(SINKS)
                    .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(1));
            assertThat(results.resolve(jobId + ".dirty.json")).doesNotExist();
            assertThat(workDir.resolve("ha/default/job-graphs/" + jobId + ".json")).doesNotExist();
            assertThat(workDir.resolve("taskmanager-1/partitions/" + jobId)).as("the job's partitions")
                    .satisfiesAnyOf(dir -> assertThat(dir).doesNotExist(), dir -> assertThat(dir).isEmptyDirectory());

            Cli.Result stopAgain = duraflow("local", "stop", "--work-dir", workDir.toString());
            assertThat(stopAgain.exitCode()).as("%s", stopAgain).isZero();
        } finally {
            pids.putAll(pids(workDir));
            pids.values().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    // ------------------------------------------------------------------ checks

    /**
     * Leaves DIRTY results of two other jobs, with 14 MB of collected data each, in the result store:
     * a new leader reads it when it recovers (before it recovers stored jobs), which makes the
     * time between its publishing itself and its having recovered the stored jobs a few hundred
     * milliseconds long instead of a few dozen, so that the races in that time show reliably.
     * Written before the job is submitted: the leader that runs it never reads them (it read the
     * store when it began to lead), and writing 28 MB between the check that the sources run and
     * the kill took over 5 s under load, long enough for the job to end first (seen twice at a
     * load average of 25).
     */
    private void addLargeDirtyResults() throws IOException {
        addLargeDirtyResult("earlier-job-1");
        addLargeDirtyResult("earlier-job-2");
    }

    private void addLargeDirtyResult(String otherJobId) throws IOException {
        byte[] data = new byte[14 << 20];
        new java.util.Random(42).nextBytes(data);
        new FileSystemJobResultStore(LocalFileSystem.INSTANCE, FsPath.of(cluster.resultStore()), false, null, java.time.Clock.systemUTC())
                .createDirtyResult(new JobResultEntry(otherJobId, "Earlier", JOB, JobOutcome.FINISHED, 1, 2, "", 0,
                        Map.of(), Map.of(), List.of(), List.of(new CollectedData("out", 0, 1, data))));
    }

    /** Waits until the job's sources ran for a while at the leader and no sink task has started yet. */
    private void awaitSourcesRunningWithoutSinks(String jobId) {
        await("the job's sources run for a while").pollDelay(Duration.ofMillis(1000)).atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(50)).ignoreException(CliException.class)
                .until(() -> TestCluster.vertex(cluster.status(jobId), SideEffectJob.SOURCE).getRunning() > 0);
        JobStatus status = cluster.status(jobId);
        assertThat(sinkVertex(status).getRunning() + sinkVertex(status).getFinished())
                .as("sink tasks started already: %s", JobRunner.progressLine(status)).isZero();
    }

    private static Map<String, String> params(Path marker, long numbers, long pauseMs) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("marker", marker.toString());
        params.put("numbers", Long.toString(numbers));
        params.put("keys", Long.toString(KEYS));
        params.put("sinks", Integer.toString(SINKS));
        if (pauseMs > 0) {
            params.put("pause-ms", Long.toString(pauseMs));
        }
        return params;
    }

    /** The line 'duraflow result' prints for key {@code key}: "(key,sum)". */
    private static String expectedLine(long key, Map<String, String> params) {
        long numbers = Long.parseLong(params.get("numbers"));
        return "(" + key + "," + SideEffectJob.expectedSums(numbers, KEYS).get(key) + ")";
    }

    private void assertFinishedWithExactSums(JobResult result, Map<String, String> params) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        long numbers = Long.parseLong(params.get("numbers"));
        Map<Long, Long> sums = ExactResults.toMap(
                TestCluster.decode(result, JOB, params, PARALLELISM).get(SideEffectJob.RESULT));
        assertSameEntries("sums of job " + status.getJobId(), sums, SideEffectJob.expectedSums(numbers, KEYS));
    }

    /** Creates the job's directory in the HA storage (where per-job data lives), so cleanup has something to delete. */
    private Path createJobDirectory(String jobId) throws IOException {
        Path probe = cluster.jobDirectory(jobId).resolve("probe");
        Files.createDirectories(probe.getParent());
        Files.writeString(probe, "deleted by the job's cleanup");
        return probe;
    }

    /**
     * Waits until the job's cleanup is complete: exactly one result entry, CLEAN; no job graph;
     * no job directory; no partition files of the job on any TaskManager.
     */
    private void assertCleanedUp(String jobId, Path probe) {
        try {
            await("cleanup of job " + jobId).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> cluster.resultFiles(jobId).equals(List.of(jobId + ".clean.json"))
                            && !Files.exists(cluster.jobGraphFile(jobId)) && !Files.exists(probe.getParent())
                            && partitionFiles(jobId).isEmpty() && allSlotsFree());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            String state;
            try {
                state = "result files " + cluster.resultFiles(jobId) + ", job graph "
                        + Files.exists(cluster.jobGraphFile(jobId)) + ", job directory "
                        + Files.exists(probe.getParent()) + ", partition files " + partitionFiles(jobId)
                        + ", TaskManagers at the leader " + cluster.overview().getTaskManagersList();
            } catch (IOException io) {
                state = io.toString();
            }
            throw new AssertionError("cleanup of job " + jobId + " incomplete: " + state, e);
        }
    }

    /** Every slot of every TaskManager registered at the leader is free (no job holds one). */
    private boolean allSlotsFree() {
        ClusterOverview overview = cluster.overview();
        return overview.getRunningJobs() == 0 && overview.getTaskManagersList().stream()
                .allMatch(tm -> tm.getFreeSlots() == tm.getSlots());
    }

    private List<Path> partitionFiles(String jobId) throws IOException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < cluster.taskManagerCount(); i++) {
            files.addAll(cluster.partitionFiles(i, jobId));
        }
        return files;
    }

    /** Exactly one JobManager stored a result for the job, once: {@code jm}. */
    private void assertResultStoredOnceBy(HaCluster.JobManager jm, String jobId) {
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(jm.name + ": ") && line.contains("result stored"));
    }

    /** {@code jm} did not run the job (it only recovered its result). */
    private void assertNotRunBy(HaCluster.JobManager jm, String jobId) {
        assertThat(cluster.logText(jm.name)).as("%s's log", jm.name).doesNotContain("Recovering job " + jobId)
                .doesNotContain("Job " + jobId + " (SideEffectJob) running");
    }

    private static VertexStatus sinkVertex(JobStatus status) {
        return TestCluster.vertex(status, "Sum");
    }

    private static final Pattern MARKER_LINE = Pattern.compile("subtask=(\\d+) attempt=(\\d+)");

    /** Sink subtask -> marker lines it wrote, over all runs and attempts. */
    private static Map<Integer, Integer> linesPerSubtask(Path marker) throws IOException {
        Map<Integer, Integer> lines = new TreeMap<>();
        for (String line : SideEffectJob.markerLines(marker)) {
            Matcher matcher = MARKER_LINE.matcher(line);
            assertThat(matcher.matches()).as("marker line '%s'", line).isTrue();
            lines.merge(Integer.parseInt(matcher.group(1)), 1, Integer::sum);
        }
        return lines;
    }

    private HaCluster.JobManager other(HaCluster.JobManager jm) {
        return cluster.jobManagers().stream().filter(other -> other != jm).findFirst().orElseThrow();
    }

    /**
     * Calls {@code call} on {@code jm} directly every 2 ms until it returns (its answer, e.g.
     * the job's state, ends the list) or fails with a code that {@code stopOn} accepts. Returns
     * the answers, runs of equal ones squeezed, errors as "CODE: description".
     */
    private List<String> askUntil(HaCluster.JobManager jm, String alias,
            java.util.function.Function<DispatcherGatewayGrpc.DispatcherGatewayBlockingStub, String> call,
            java.util.function.Predicate<io.grpc.Status.Code> stopOn) {
        List<String> answers = new ArrayList<>();
        ManagedChannel channel = Rpc.channel(jm.address());
        try {
            DispatcherGatewayGrpc.DispatcherGatewayBlockingStub stub = DispatcherGatewayGrpc.newBlockingStub(channel);
            await(alias).atMost(JOB_TIMEOUT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                    .until(() -> {
                        try {
                            answers.add(call.apply(stub.withDeadlineAfter(5, TimeUnit.SECONDS)));
                            return true;
                        } catch (StatusRuntimeException e) {
                            answers.add(e.getStatus().getCode() + ": " + e.getStatus().getDescription());
                            return stopOn.test(e.getStatus().getCode());
                        }
                    });
        } finally {
            Rpc.shutdown(channel);
        }
        List<String> squeezed = squeeze(answers);
        System.out.printf("%s: answers of %s: %s%n", testName, jm.name, squeezed);
        return squeezed;
    }

    /** The answers with runs of equal ones shown once, with their count. */
    private static List<String> squeeze(List<String> answers) {
        List<String> squeezed = new ArrayList<>();
        for (int i = 0; i < answers.size(); ) {
            int j = i;
            while (j < answers.size() && answers.get(j).equals(answers.get(i))) {
                j++;
            }
            squeezed.add(answers.get(i) + (j - i > 1 ? " (x" + (j - i) + ")" : ""));
            i = j;
        }
        return squeezed;
    }

    private static int total(Map<Integer, Integer> lines) {
        return lines.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static int count(String text, String fragment) {
        return Collections.frequency(text.lines().map(line -> line.contains(fragment)).toList(), true);
    }

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    private static String[] concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all.toArray(String[]::new);
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** name -> pid from a local cluster's pid files. */
    private static Map<String, Long> pids(Path workDir) throws IOException {
        return new LocalCluster(workDir, Map.of(), line -> {}).processes();
    }
}

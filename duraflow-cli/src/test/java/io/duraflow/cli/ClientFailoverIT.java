package io.duraflow.cli;

import static io.duraflow.cli.SideEffectRuns.CLI_TIMEOUT;
import static io.duraflow.cli.SideEffectRuns.JOB;
import static io.duraflow.cli.SideEffectRuns.JOB_TIMEOUT;
import static io.duraflow.cli.SideEffectRuns.KEYS;
import static io.duraflow.cli.SideEffectRuns.PARALLELISM;
import static io.duraflow.cli.SideEffectRuns.assertCleanedUp;
import static io.duraflow.cli.SideEffectRuns.assertFinishedWithExactSums;
import static io.duraflow.cli.SideEffectRuns.assertMarkerLinesPerSink;
import static io.duraflow.cli.SideEffectRuns.assertResultStoredOnceBy;
import static io.duraflow.cli.SideEffectRuns.awaitSourcesRunningWithoutSinks;
import static io.duraflow.cli.SideEffectRuns.concat;
import static io.duraflow.cli.SideEffectRuns.count;
import static io.duraflow.cli.SideEffectRuns.createJobDirectory;
import static io.duraflow.cli.SideEffectRuns.params;
import static io.duraflow.cli.SideEffectRuns.runCommand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients and submissions through a JobManager failover, with real processes: a ZooKeeper
 * server, two JobManagers and two TaskManagers on loopback. The leader is SIGKILLed (or
 * SIGSTOPped) while a job's sources run and before any sink task started, where it keeps no
 * work; each test checks what the clients see, that the standby takes over, and that the job's
 * outcome is right (see {@link SideEffectRuns}): exact result, one CLEAN entry, cleanup
 * complete, one side effect per sink task.
 *
 * <p>The tests share one cluster, each with its own job id: a test leaves two TaskManagers with
 * every slot free and a leader, and the JobManager it killed is replaced by a new standby before
 * the next test. If a test left the cluster otherwise (it failed), the tests after it start a
 * cluster each.
 */
class ClientFailoverIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static SharedHaCluster shared;
    /** The cluster of this test: the shared one, or its own. */
    private HaCluster cluster;
    private String testName;
    private final long started = System.nanoTime();

    @BeforeAll
    static void startCluster() throws Exception {
        shared = SharedHaCluster.start(LOGS, sharedDir);
    }

    @AfterAll
    static void stopCluster() {
        if (shared != null) {
            shared.close();
        }
    }

    @BeforeEach
    void readyCluster(TestInfo test) throws Exception {
        testName = test.getDisplayName();
        cluster = shared.forTest(testName, tempDir);
    }

    @AfterEach
    void stopOwnCluster() {
        if (!shared.isShared(cluster)) {
            cluster.close();
        }
        System.out.printf("%s: %.1f s%n", testName, (System.nanoTime() - started) / 1e9);
    }

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
    void clientsFollowTheJobThroughAFailover() throws Exception {
        String jobId = "followed-through-failover";
        addLargeDirtyResults(jobId);
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(cluster, jobId);
        Cli.Running attached = Cli.start(LOGS.watch(tempDir), concat(runCommand(jobId, params),
                cluster.clientOptions()));

        awaitSourcesRunningWithoutSinks(cluster, jobId);
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
        assertMarkerLinesPerSink(marker, 1, "the run after the failover");
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, second, jobId);
        assertThat(cluster.logText(second.name)).contains("Recovering job " + jobId);
    }

    /**
     * (a, resubmission) A client whose submission got no answer because the leader died submits
     * again with the same job id (ClusterClient retries until it finds the new leader), and the
     * new leader also recovers the stored job graph of that id: the job must still run once.
     */
    @Test
    void submissionRetriedThroughAFailoverRunsTheJobOnce() throws Exception {
        String jobId = "resubmitted-through-failover";
        addLargeDirtyResults(jobId);
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(cluster, jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);

        awaitSourcesRunningWithoutSinks(cluster, jobId);
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
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, second, jobId);
        assertMarkerLinesPerSink(marker, 1, "the run after the failover");
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
    void submissionByAddressDuringTheNewLeadersRecoveryRunsTheJobOnce() throws Exception {
        String jobId = "resubmitted-during-recovery";
        addLargeDirtyResults(jobId);
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        HaCluster.JobManager standby = cluster.liveJobManagers().stream().filter(jm -> jm != first).findFirst()
                .orElseThrow();
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 200);
        Path probe = createJobDirectory(cluster, jobId);
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(JOB)
                .putAllParams(params).setParallelism(PARALLELISM).build();
        cluster.submit(jobId, JOB, params, PARALLELISM);

        awaitSourcesRunningWithoutSinks(cluster, jobId);
        cluster.kill(first);
        List<String> answers = askUntil(standby, "the standby answers the submission", stub -> {
            stub.submitJob(request);
            return "accepted";
        }, code -> code != Status.Code.UNAVAILABLE);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertThat(cluster.count(standby.name, "Job " + jobId + " (SideEffectJob) running"))
                .as("JobMasters that %s started for the job (answers to the resubmission: %s)", standby.name,
                        answers).isEqualTo(1);
        assertFinishedWithExactSums(result, params);
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, standby, jobId);
        assertMarkerLinesPerSink(marker, 1, "the run after the failover");
    }

    /**
     * (e) The leader is frozen (SIGSTOP) while the job runs, long enough for its ZooKeeper session
     * to expire: the standby leads, the TaskManagers follow it, and it runs the job. Then the old
     * leader thaws (SIGCONT). It must find out that it was deposed and stand by without writing a
     * result or taking the TaskManagers back; the job finishes once, with the right result.
     */
    @Test
    void deposedLeaderThawsWhileTheNewLeaderRunsTheJob() throws Exception {
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        String jobId = "deposed-leader";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, 40_000, 250);
        Path probe = createJobDirectory(cluster, jobId);
        cluster.submit(jobId, JOB, params, PARALLELISM);
        awaitSourcesRunningWithoutSinks(cluster, jobId);

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
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, second, jobId);
        // Frozen before any sink task started; the thawed leader cannot have started one.
        assertMarkerLinesPerSink(marker, 1, "the run at the new leader");

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
        // The next test's standby is one that never led, as in the other tests: a new one in its place.
        cluster.kill(first);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Leaves DIRTY results of two other jobs, with 14 MB of collected data each, in the result store:
     * a new leader reads it when it recovers (before it recovers stored jobs), which makes the
     * time between its publishing itself and its having recovered the stored jobs a few hundred
     * milliseconds long instead of a few dozen, so that the races in that time show reliably.
     * Written before the job is submitted: the leader that runs it never reads them (it read the
     * store when it began to lead), and writing 28 MB between the check that the sources run and
     * the kill took over 5 s under load, long enough for the job to end first (seen twice at a
     * load average of 25). Named after the test's job, since the cluster is shared: the new
     * leader finishes their cleanup, after which they are CLEAN and no later leader reads them.
     */
    private void addLargeDirtyResults(String jobId) throws IOException {
        FileSystemJobResultStore store = new FileSystemJobResultStore(LocalFileSystem.INSTANCE,
                FsPath.of(cluster.resultStore()), false, null, Clock.systemUTC());
        for (int i = 1; i <= 2; i++) {
            byte[] data = new byte[14 << 20];
            new Random(42).nextBytes(data);
            store.createDirtyResult(new JobResultEntry("before-" + jobId + "-" + i, "Earlier", JOB,
                    JobOutcome.FINISHED, 1, 2, "", 0, Map.of(), Map.of(), List.of(),
                    List.of(new CollectedData("out", 0, 1, data))));
        }
    }

    /**
     * Calls {@code call} on {@code jm} directly every 2 ms until it returns (its answer, e.g.
     * the job's state, ends the list) or fails with a code that {@code stopOn} accepts. Returns
     * the answers, runs of equal ones squeezed, errors as "CODE: description".
     */
    private List<String> askUntil(HaCluster.JobManager jm, String alias,
            Function<DispatcherGatewayGrpc.DispatcherGatewayBlockingStub, String> call, Predicate<Status.Code> stopOn) {
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
}

package io.duraflow.cli;

import static io.duraflow.cli.SideEffectRuns.CLI_TIMEOUT;
import static io.duraflow.cli.SideEffectRuns.FAILPOINT_TIMEOUT;
import static io.duraflow.cli.SideEffectRuns.JOB;
import static io.duraflow.cli.SideEffectRuns.JOB_TIMEOUT;
import static io.duraflow.cli.SideEffectRuns.KEYS;
import static io.duraflow.cli.SideEffectRuns.NUMBERS;
import static io.duraflow.cli.SideEffectRuns.PARALLELISM;
import static io.duraflow.cli.SideEffectRuns.SINKS;
import static io.duraflow.cli.SideEffectRuns.assertCleanedUp;
import static io.duraflow.cli.SideEffectRuns.assertFinishedWithExactSums;
import static io.duraflow.cli.SideEffectRuns.assertMarkerLinesPerSink;
import static io.duraflow.cli.SideEffectRuns.assertNotRunBy;
import static io.duraflow.cli.SideEffectRuns.assertResultStoredOnceBy;
import static io.duraflow.cli.SideEffectRuns.concat;
import static io.duraflow.cli.SideEffectRuns.createJobDirectory;
import static io.duraflow.cli.SideEffectRuns.expectedLine;
import static io.duraflow.cli.SideEffectRuns.params;
import static io.duraflow.cli.SideEffectRuns.runCommand;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job result store through JobManager failovers, with real processes: a ZooKeeper server,
 * two JobManagers and two TaskManagers on loopback. The leader is SIGKILLed at a chosen moment
 * of the end of a job's life (a failpoint makes it exact: before the DIRTY result is written,
 * after it, after the entry is marked CLEAN), and each test checks that the standby takes over
 * and that the job's outcome is right (see {@link SideEffectRuns}): exact result, one CLEAN
 * entry, cleanup complete, and as many side effects as runs. That the result store survives a
 * restart of a whole local cluster without high availability is checked with the local cluster's
 * life cycle ({@code CliErrorsIT}).
 *
 * <p>The tests share one cluster, each with its own job id: a test arms its failpoint while it
 * runs ({@link HaCluster#armFailpoint}) and disarms it before it kills the leader, so the standby
 * that takes over goes on; the JobManager it killed is replaced by a new standby before the next
 * test. If a test left the cluster otherwise (it failed), the tests after it start a cluster each.
 * Batch job recovery is on (the default with high availability) unless a test's job says
 * otherwise. That a result larger than the JSON parser's default string limit is read back from
 * the store is a unit test of the store ({@code FileSystemJobResultStoreTest}).
 */
class JobResultStoreFailoverIT {
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
        cluster.disarmFailpoints();
    }

    @AfterEach
    void stopOwnCluster() throws IOException {
        if (cluster != null) {
            cluster.disarmFailpoints();
            if (!shared.isShared(cluster)) {
                cluster.close();
            }
        }
        System.out.printf("%s: %.1f s%n", testName, (System.nanoTime() - started) / 1e9);
    }

    /**
     * Submits the job with {@code failpoint} armed, waits until the leader stops there and
     * disarms it: the JobManager that takes over does not stop there again. Returns the leader.
     */
    private HaCluster.JobManager submitAndAwaitFailpoint(SubmitJobRequest job, String failpoint) throws IOException {
        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        cluster.armFailpoint(failpoint);
        cluster.submit(job);
        cluster.awaitFailpoint(leader, failpoint, FAILPOINT_TIMEOUT);
        cluster.disarmFailpoints();
        return leader;
    }

    private static SubmitJobRequest job(String jobId, Map<String, String> params) {
        return SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(JOB).putAllParams(params)
                .setParallelism(PARALLELISM).build();
    }

    /**
     * (b) The leader dies after the job ended but before its DIRTY result was written: nothing
     * records that the job ended, so the new leader runs it again; with batch job recovery off,
     * from the start (a second run's side effects). Exactly one result.
     */
    @Test
    void leaderKilledBeforeTheDirtyResult() throws Exception {
        String jobId = "killed-before-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(cluster, jobId);
        HaCluster.JobManager first = submitAndAwaitFailpoint(job(jobId, params).toBuilder()
                .putConfig("execution.batch.job-recovery.enabled", "off").build(), "dispatcher.before-dirty-result");

        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint").isEmpty();
        assertThat(cluster.jobGraphFile(jobId)).exists();
        assertThat(SideEffectJob.markerLines(marker)).as("marker lines of the first run").hasSize(SINKS);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, second, jobId);
        assertThat(cluster.logText(second.name))
                .contains("Recovering job " + jobId + " (" + JOB + "): it runs again from the start");
        assertMarkerLinesPerSink(marker, 2, "one per run");
    }

    /**
     * (b, batch job recovery) As (b), with batch job recovery on (the default with high
     * availability): the new leader finds in the job event log that every task finished, keeps
     * that work (no task runs again, so no second side effect), and the job ends FINISHED with the
     * exact result (the collected records come from the event log) and exactly one result entry.
     */
    @Test
    void leaderKilledBeforeTheDirtyResultWithBatchJobRecovery() throws Exception {
        String jobId = "recovered-before-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(cluster, jobId);
        HaCluster.JobManager first = submitAndAwaitFailpoint(job(jobId, params), "dispatcher.before-dirty-result");

        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint").isEmpty();
        assertThat(SideEffectJob.markerLines(marker)).as("marker lines of the first run").hasSize(SINKS);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(cluster, jobId, probe);
        assertResultStoredOnceBy(cluster, second, jobId);
        assertMarkerLinesPerSink(marker, 1, "nothing ran again");
    }

    /**
     * (c) The leader dies after it wrote the DIRTY result, before cleanup: the new leader must
     * not run the job again, and must finish the cleanup (the entry becomes CLEAN). The result it
     * serves is the one the first leader stored.
     */
    @Test
    void leaderKilledAfterTheDirtyResult() throws Exception {
        String jobId = "killed-after-dirty";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(cluster, jobId);
        HaCluster.JobManager first = submitAndAwaitFailpoint(job(jobId, params), "dispatcher.before-cleanup");

        assertThat(cluster.resultFiles(jobId)).as("result entries at the failpoint")
                .containsExactly(jobId + ".dirty.json");
        assertThat(cluster.jobGraphFile(jobId)).exists();
        assertThat(probe).exists();
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedWithExactSums(result, params);
        assertCleanedUp(cluster, jobId, probe);
        cluster.awaitLog(second, "Job " + jobId + " ended (FINISHED) under an earlier leader; finishing its"
                + " cleanup, not running it again", Duration.ofSeconds(1));
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(first.name + ": "));
        assertNotRunBy(cluster, second, jobId);
        assertMarkerLinesPerSink(marker, 1, "the one run");
    }

    /**
     * (d) The leader dies after the job's entry was marked CLEAN: the new leader runs nothing;
     * it reads the result the first leader stored and serves it ('duraflow result' shows it, and
     * GetJobResult returns the exact sums), and submitting the same job id again does not run it
     * but says it already ended, with exit code 0 (it FINISHED).
     */
    @Test
    void leaderKilledAfterTheCleanResult() throws Exception {
        String jobId = "killed-after-clean";
        Path marker = tempDir.resolve("marker");
        Map<String, String> params = params(marker, NUMBERS, 0);
        Path probe = createJobDirectory(cluster, jobId);
        HaCluster.JobManager first = submitAndAwaitFailpoint(job(jobId, params), "dispatcher.after-clean");

        assertCleanedUp(cluster, jobId, probe);
        HaCluster.JobManager second = cluster.killLeaderAndAwaitTheNext(first);
        cluster.awaitTaskManagers(2);

        Cli.Result shown = duraflow(concat(List.of("result", jobId), cluster.clientOptions()));
        assertThat(shown.exitCode()).as("%s", shown).isZero();
        assertThat(shown.stdout()).as("%s", shown).contains("Job " + jobId + " (SideEffectJob) FINISHED")
                .contains(SideEffectJob.RESULT + ": " + KEYS + " records").contains(expectedLine(3, params));

        Cli.Result resubmitted = duraflow(concat(runCommand(jobId, params), cluster.clientOptions()));
        assertThat(resubmitted.exitCode()).as("%s", resubmitted).isZero();
        assertThat(resubmitted.stdout()).as("%s", resubmitted)
                .contains("job " + jobId + " already ended as FINISHED").doesNotContain("Submitted job");

        assertFinishedWithExactSums(cluster.result(jobId), params);
        assertCleanedUp(cluster, jobId, probe);
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(first.name + ": "));
        assertNotRunBy(cluster, second, jobId);
        assertMarkerLinesPerSink(marker, 1, "the one run");
    }

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }
}

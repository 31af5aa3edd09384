package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.TaskStatus;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TaskManager process killed with SIGKILL is lost as soon as its connections break, well
 * before {@code heartbeat.timeout}, which is set to 30 s here so that only the suspicion path
 * ({@code io.duraflow.jobmanager.resourcemanager.TaskManagerProbes}) can explain a loss within 2 s. A JobManager
 * (and, for the streaming job, the surviving TaskManager) run in this JVM, on loopback.
 */
class TaskManagerLossTest {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration LOST_WITHIN = Duration.ofSeconds(2);
    private static final long HEARTBEAT_TIMEOUT_MS = 30_000;
    private static final long RESTART_DELAY_MS = 500;

    @TempDir
    Path dir;

    private Map<String, String> settings;
    private JobManagerRunner jobManager;
    private ManagedChannel channel;
    private DispatcherGatewayGrpc.DispatcherGatewayBlockingStub dispatcher;
    private TaskManagerRunner survivor;
    private Process victim;
    /** The victim's output, kept under target/ after the test's {@code @TempDir} is gone. */
    private Path victimLog;

    @BeforeEach
    void startJobManager(TestInfo test) throws Exception {
        victimLog = Path.of("target", "process-logs", getClass().getSimpleName(),
                test.getTestMethod().orElseThrow().getName() + "-victim.log").toAbsolutePath();
        settings = new HashMap<>(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "heartbeat.interval", "200ms",
                "heartbeat.timeout", HEARTBEAT_TIMEOUT_MS + "ms", "taskmanager.slots", "4",
                "restart-strategy.fixed-delay.delay", RESTART_DELAY_MS + "ms"));
        jobManager = JobManagerRunner.start(Configuration.fromMap(settings));
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
        dispatcher = DispatcherGatewayGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() throws Exception {
        if (victim != null) {
            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (survivor != null) {
            survivor.close();
        }
        Rpc.shutdown(channel);
        jobManager.close();
    }

    private Process startVictim() throws Exception {
        Map<String, String> tm = new HashMap<>(settings);
        tm.put("taskmanager.data-dir", dir.resolve("victim").toString());
        return TaskManagerProcess.start("127.0.0.1:" + jobManager.port(), tm, victimLog);
    }

    private List<TaskManagerInfo> taskManagers() {
        return dispatcher.getClusterOverview(Empty.getDefaultInstance()).getTaskManagersList();
    }

    private String awaitTaskManagers(int count) throws Exception {
        await().atMost(START_TIMEOUT).ignoreExceptions().until(() -> taskManagers().size() == count
                || !victim.isAlive());
        assertThat(victim.isAlive()).as("the TaskManager process runs; its log: %s", victimLog()).isTrue();
        return taskManagers().stream().map(TaskManagerInfo::getTmId)
                .filter(id -> survivor == null || !id.equals(survivor.taskManagerId())).findFirst().orElseThrow();
    }

    private String victimLog() throws Exception {
        return Files.exists(victimLog) ? Files.readString(victimLog) : "(none)";
    }

    /** SIGKILLs the victim and returns how long after the kill the JobManager no longer lists it. */
    private long killAndAwaitLoss(String victimId) {
        long killedAt = System.nanoTime();
        victim.destroyForcibly();  // SIGKILL
        await().atMost(LOST_WITHIN).pollInterval(Duration.ofMillis(10)).ignoreExceptions().until(() -> taskManagers().stream()
                .noneMatch(tm -> tm.getTmId().equals(victimId)));
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    }

    @Test
    void anIdleTaskManagerKilledWithSigkillIsLostWellBeforeItsHeartbeatTimeout() throws Exception {
        victim = startVictim();
        String victimId = awaitTaskManagers(1);

        long lostMs = killAndAwaitLoss(victimId);

        assertThat(lostMs).as("lost after %d ms, with a heartbeat timeout of %d ms", lostMs, HEARTBEAT_TIMEOUT_MS)
                .isLessThan(LOST_WITHIN.toMillis());
    }

    @Test
    void aTaskManagerKilledUnderAStreamingJobIsLostAtOnceAndTheJobRunsOnTheOtherOneTheRestartDelayLater()
            throws Exception {
        Map<String, String> survivorSettings = new HashMap<>(settings);
        survivorSettings.put("taskmanager.data-dir", dir.resolve("survivor").toString());
        survivor = TaskManagerRunner.start(Configuration.fromMap(survivorSettings), "127.0.0.1:" + jobManager.port(),
                60_000);
        victim = startVictim();
        String victimId = awaitTaskManagers(2);
        // Endless, so it runs until the test ends; each TaskManager gets half of its four tasks
        // (slots go to the TaskManager with the most free ones), so streams cross between them.
        String jobId = dispatcher.submitJob(SubmitJobRequest.newBuilder().setJobClass(StreamingKeyedSum.class.getName())
                .putParams("records", "0").putParams("keys", "1000").putParams("rate", "20000").setParallelism(2)
                .build()).getJobId();
        JobStatus running = await().atMost(START_TIMEOUT).until(() -> status(jobId), s -> allRunning(s, 0));
        assertThat(tasks(running)).extracting(TaskStatus::getTmId).as("tasks on both TaskManagers")
                .contains(victimId, survivor.taskManagerId());

        long lostMs = killAndAwaitLoss(victimId);
        long lostAt = System.nanoTime();
        JobStatus again = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
                .until(() -> status(jobId), s -> allRunning(s, 1));
        long runningAgainAfterLossMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lostAt);

        assertThat(lostMs).as("lost after %d ms, with a heartbeat timeout of %d ms", lostMs, HEARTBEAT_TIMEOUT_MS)
                .isLessThan(LOST_WITHIN.toMillis());
        assertThat(tasks(again)).extracting(TaskStatus::getTmId).as("every task runs on the survivor")
                .containsOnly(survivor.taskManagerId());
        assertThat(again.getRestarts()).as("one restart: the loss is part of the restart the failed tasks began")
                .isEqualTo(1);
        assertThat(runningAgainAfterLossMs).as("running again %d ms after the loss, restart delay %d ms",
                runningAgainAfterLossMs, RESTART_DELAY_MS).isBetween(RESTART_DELAY_MS - 100, RESTART_DELAY_MS + 5_000);
    }

    private JobStatus status(String jobId) {
        return dispatcher.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build());
    }

    private static List<TaskStatus> tasks(JobStatus status) {
        return status.getVerticesList().stream().flatMap(v -> v.getTasksList().stream()).toList();
    }

    /** Every task of the job runs, as attempt {@code attempt}. */
    private static boolean allRunning(JobStatus status, int attempt) {
        assertThat(status.getState()).as("%s", status).isIn(JobState.JOB_CREATED, JobState.JOB_RUNNING);
        List<TaskStatus> tasks = tasks(status);
        return tasks.size() == 4 && tasks.stream().allMatch(t -> t.getState().equals("RUNNING")
                && t.getAttempt() == attempt);
    }
}

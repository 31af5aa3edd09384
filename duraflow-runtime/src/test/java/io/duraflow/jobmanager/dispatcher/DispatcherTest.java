package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatcher's durable life cycle of a job, step by step: a manual main thread and clock,
 * in-memory stores (one that fails on purpose), and store I/O run inline.
 */
class DispatcherTest {
    @TempDir
    Path tempDir;

    private final ManualMailbox main = new ManualMailbox();
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();
    private final FlakyJobGraphStore jobGraphs = new FlakyJobGraphStore();
    private final AtomicBoolean leads = new AtomicBoolean(true);
    private final AtomicInteger gaveUp = new AtomicInteger();

    /** A job graph store whose remove fails the first {@code failures} times. */
    static final class FlakyJobGraphStore implements JobGraphStore {
        final InMemoryJobGraphStore delegate = new InMemoryJobGraphStore();
        int failures;
        int removeCalls;

        @Override
        public void put(SubmittedJob job) throws IOException {
            delegate.put(job);
        }

        @Override
        public Optional<SubmittedJob> get(String jobId) throws IOException {
            return delegate.get(jobId);
        }

        @Override
        public void remove(String jobId) throws IOException {
            removeCalls++;
            if (failures > 0) {
                failures--;
                throw new IOException("disk unavailable (injected)");
            }
            delegate.remove(jobId);
        }

        @Override
        public List<String> jobIds() throws IOException {
            return delegate.jobIds();
        }
    }

    private Dispatcher dispatcher(String session, CleanupRetryPolicy policy) {
        return dispatcher(session, policy, new ResourceManager(session, main, main::now, 10_000, 10_000));
    }

    private Dispatcher dispatcher(String session, CleanupRetryPolicy policy, ResourceManager resourceManager) {
        Dispatcher.Services services = new Dispatcher.Services(results, jobGraphs,
                JobDirectories.local(tempDir.resolve("jobs")), policy, Runnable::run, Runnable::run, gaveUp::incrementAndGet,
                s -> leads.get());
        return new Dispatcher(new Configuration(), session, resourceManager, main, main::now, services);
    }

    /** A small WordCount submission; nothing runs it, as no TaskManager registers. */
    static SubmitJobRequest wordCount(String jobId) {
        return SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(WordCount.class.getName())
                .putAllParams(Map.of("words", "100")).setParallelism(1).build();
    }

    private <T> T await(CompletableFuture<T> future) {
        main.runDue();
        assertThat(future).isDone();
        return future.join();
    }

    private JobState state(Dispatcher dispatcher, String jobId) {
        CompletableFuture<JobStatus> status = dispatcher.status(jobId);
        main.runDue();
        return status.join().getState();
    }

    @Test
    void aCancelledJobIsStoredDirtyThenCleanedAndNeverRunsAgain() throws Exception {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        Files.createDirectories(tempDir.resolve("jobs").resolve("job-1"));
        await(dispatcher.submit(wordCount("job-1")));
        assertThat(jobGraphs.get("job-1")).isPresent();
        assertThat(state(dispatcher, "job-1")).isEqualTo(JobState.JOB_RUNNING);

        dispatcher.cancel("job-1");
        main.runDue();

        assertThat(state(dispatcher, "job-1")).isEqualTo(JobState.JOB_CANCELED);
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
        assertThat(results.getResult("job-1").orElseThrow().state()).isEqualTo(JobOutcome.CANCELED);
        assertThat(jobGraphs.get("job-1")).isEmpty();
        assertThat(tempDir.resolve("jobs").resolve("job-1")).doesNotExist();
        assertThat(dispatcher.cleanupState("job-1")).isEqualTo(new CleanupState.Done());

        assertThatThrownBy(() -> dispatcher.submit(wordCount("job-1"))).isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("already ended as CANCELED");
    }

    /** A running job's status is published for queries off the main thread; a cancel takes it back at once. */
    @Test
    void aPublishedStatusIsServedWhileCurrentAndNotAfterTheJobIsCancelled() throws Exception {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        await(dispatcher.submit(wordCount("job-1")));
        assertThat(dispatcher.publishedStatus("job-1")).as("never asked for").isNull();

        JobState running = state(dispatcher, "job-1");

        assertThat(dispatcher.publishedStatus("job-1")).isNotNull()
                .extracting(JobStatus::getState).isEqualTo(running);
        dispatcher.cancel("job-1");
        assertThat(dispatcher.publishedStatus("job-1")).as("the cancel changed the job's state").isNull();
        main.runDue();
        assertThat(state(dispatcher, "job-1")).isEqualTo(JobState.JOB_CANCELED);
        assertThat(dispatcher.publishedStatus("job-1")).as("an ended job is never published").isNull();
        dispatcher.close();
        assertThat(dispatcher.publishedStatus("job-1")).isNull();
    }

    @Test
    void cleanupIsRetriedWithBackoffUntilItSucceeds() throws Exception {
        jobGraphs.failures = 3;
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.exponentialDelay(Duration.ofSeconds(1),
                Duration.ofMinutes(1), 0));
        await(dispatcher.submit(wordCount("job-2")));
        dispatcher.cancel("job-2");
        main.runDue();
        assertThat(results.hasDirtyJobResultEntry("job-2")).as("first attempt failed").isTrue();
        assertThat(jobGraphs.removeCalls).isEqualTo(1);

        main.advance(999);
        assertThat(jobGraphs.removeCalls).as("no retry before the backoff").isEqualTo(1);
        main.advance(1);
        assertThat(jobGraphs.removeCalls).isEqualTo(2);
        main.advance(2_000);
        assertThat(jobGraphs.removeCalls).isEqualTo(3);
        main.advance(4_000);
        assertThat(jobGraphs.removeCalls).isEqualTo(4);
        assertThat(results.hasCleanJobResultEntry("job-2")).isTrue();
        assertThat(dispatcher.cleanupState("job-2")).isEqualTo(new CleanupState.Done());
        assertThat(gaveUp).hasValue(0);
    }

    @Test
    void withStrategyNoneAFailedCleanupStaysDirtyAndTheNextLeaderCompletesIt() throws Exception {
        jobGraphs.failures = 1;
        Dispatcher first = dispatcher("s1", CleanupRetryPolicy.none());
        await(first.submit(wordCount("job-3")));
        first.cancel("job-3");
        main.runDue();
        assertThat(results.hasDirtyJobResultEntry("job-3")).isTrue();
        assertThat(first.cleanupState("job-3")).isInstanceOf(CleanupState.GaveUp.class);

        first.close();
        Dispatcher second = dispatcher("s2", CleanupRetryPolicy.none());
        await(second.recover());

        assertThat(results.hasCleanJobResultEntry("job-3")).isTrue();
        assertThat(jobGraphs.get("job-3")).isEmpty();
        assertThat(second.runningJobs()).as("a job with a result is never run again").isZero();
        assertThat(state(second, "job-3")).isEqualTo(JobState.JOB_CANCELED);
    }

    @Test
    void aStoredJobWithoutResultRunsAgainOnTheNextLeader() throws Exception {
        Dispatcher first = dispatcher("s1", CleanupRetryPolicy.none());
        await(first.submit(wordCount("job-4")));
        first.close();

        Dispatcher second = dispatcher("s2", CleanupRetryPolicy.none());
        await(second.recover());
        assertThat(second.runningJobs()).isEqualTo(1);
        assertThat(state(second, "job-4")).isEqualTo(JobState.JOB_RUNNING);
    }

    @Test
    void failingToWriteTheDirtyResultGivesUpLeadershipAndReportsNoResult() throws Exception {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        await(dispatcher.submit(wordCount("job-5")));
        leads.set(false);
        dispatcher.cancel("job-5");
        main.runDue();

        assertThat(gaveUp).hasValue(1);
        assertThat(results.hasJobResultEntry("job-5")).isFalse();
        assertThat(state(dispatcher, "job-5")).as("never a result that is not durable").isEqualTo(JobState.JOB_RUNNING);
        assertThat(jobGraphs.get("job-5")).as("the next leader finds the job").isPresent();
    }

    @Test
    void aDeposedLeaderCannotStoreASubmission() throws Exception {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        leads.set(false);
        CompletableFuture<?> submitted = dispatcher.submit(wordCount("job-6"));
        main.runDue();
        assertThat(submitted).isCompletedExceptionally();
        assertThatThrownBy(submitted::join).rootCause().isInstanceOf(StatusRuntimeException.class)
                .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                        .isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(jobGraphs.jobIds()).isEmpty();
        assertThat(dispatcher.runningJobs()).isZero();
    }

    @Test
    void twoSimultaneousSubmissionsOfOneIdRunItOnce() {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        CompletableFuture<?> first = dispatcher.submit(wordCount("job-7"));
        assertThatThrownBy(() -> dispatcher.submit(wordCount("job-7"))).isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("being submitted");
        main.runDue();
        assertThat(first).isCompleted();
        assertThat(dispatcher.runningJobs()).isEqualTo(1);
    }

    /**
     * ClientFailoverIT.clientsFollowTheJobThroughAFailover: the leader lost its ZooKeeper session
     * while 'duraflow run' submitted; the client sent its submission again, the next leader had
     * recovered the stored job graph and answered "already running" about the client's own job,
     * and the command exited with 1. A resubmission of the same job is answered with that job;
     * another submission of the id is still refused.
     */
    @Test
    void aResubmissionOfAJobTheNextLeaderRecoveredIsAnsweredWithThatJob() throws Exception {
        Dispatcher first = dispatcher("s1", CleanupRetryPolicy.none());
        CompletableFuture<SubmitJobResponse> lost = first.submit(wordCount("job-8"));
        main.runDue();
        assertThat(lost).as("stored and running; the answer never reached the client").isCompleted();
        first.close();
        Dispatcher second = dispatcher("s2", CleanupRetryPolicy.none());
        await(second.recover());

        SubmitJobRequest again = wordCount("job-8").toBuilder().setResubmission(true).build();
        assertThat(await(second.submit(again))).isEqualTo(lost.join());
        assertThatThrownBy(() -> second.submit(wordCount("job-8"))).as("a first submission of a running id")
                .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("already running");
        assertThatThrownBy(() -> second.submit(again.toBuilder().putParams("words", "200").build()))
                .as("a resubmission with other parameters").isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("already running");
        assertThat(second.runningJobs()).isEqualTo(1);
        assertThat(jobGraphs.jobIds()).containsExactly("job-8");
    }

    /** A resubmission that finds the same submission still in progress gets its answer; it runs once. */
    @Test
    void aResubmissionWhileTheSameSubmissionIsInProgressGetsItsAnswer() {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());
        CompletableFuture<SubmitJobResponse> first = dispatcher.submit(wordCount("job-9"));
        CompletableFuture<SubmitJobResponse> again = dispatcher.submit(wordCount("job-9").toBuilder()
                .setResubmission(true).build());
        assertThatThrownBy(() -> dispatcher.submit(wordCount("job-9").toBuilder().setParallelism(2)
                .setResubmission(true).build())).as("a resubmission with another parallelism")
                .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("being submitted");
        main.runDue();

        assertThat(again.join()).isEqualTo(first.join());
        assertThat(first.join().getFingerprint()).isNotEmpty();
        assertThat(dispatcher.runningJobs()).isEqualTo(1);
    }

    /**
     * ClientFailoverIT.clientsFollowTheJobThroughAFailover failed after 10 restarts, each
     * deployment refused with "all 2 slots of tm-... are busy": under load a TaskManager's
     * registration timed out on its side while the new leader registered it, and it registered
     * again. The leader took that for a new TaskManager, failed the tasks it had just deployed
     * there and counted the slots free; the TaskManager, still in the same session, ran those
     * tasks (sources waiting for splits that never came) and nobody asked it to stop them. A
     * heartbeat that lists an attempt no job runs on that TaskManager now cancels it.
     */
    @Test
    void aTaskNoJobRunsOnItsTaskManagerIsCancelledWhenAHeartbeatListsIt() {
        RecordingGateways taskManagers = new RecordingGateways(main);
        ResourceManager resourceManager = new ResourceManager(main, main::now, 10_000, taskManagers);
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none(), resourceManager);
        await(dispatcher.submit(wordCount("job-1")));
        resourceManager.register("tm-1", "tm-1.test:6122", 2);
        main.runDue();
        assertThat(taskManagers.deployments()).isNotEmpty();
        io.duraflow.rpc.proto.AttemptId deployed = taskManagers.deployments().get(0).attempt();
        dispatcher.onTasksRunning("tm-1", List.of(deployed));
        assertThat(taskManagers.cancels()).as("cancelled while the job runs it there").isEmpty();
        dispatcher.onTaskStateUpdate(io.duraflow.rpc.proto.TaskStateUpdate.newBuilder().setJmSessionId("s1")
                .setTmId("tm-1").setAttempt(deployed).setState(io.duraflow.rpc.proto.TaskState.RUNNING).build());
        main.runDue();
        dispatcher.onTasksRunning("tm-1", List.of(deployed));
        assertThat(taskManagers.cancels()).as("cancelled while it runs there").isEmpty();

        resourceManager.register("tm-1", "tm-1.test:6122", 2);
        main.runDue();
        assertThat(taskManagers.cancels()).as("cancelled by the job master when the TaskManager registered again")
                .isEmpty();
        dispatcher.onTasksRunning("tm-1", List.of(deployed));
        dispatcher.onTasksRunning("tm-1", List.of(deployed.toBuilder().setJobId("gone").build()));

        assertThat(taskManagers.cancels()).containsExactly(new RecordingGateways.Cancel("tm-1", deployed),
                new RecordingGateways.Cancel("tm-1", deployed.toBuilder().setJobId("gone").build()));
    }
}

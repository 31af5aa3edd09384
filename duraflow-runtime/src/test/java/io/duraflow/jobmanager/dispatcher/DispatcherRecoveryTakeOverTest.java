package io.duraflow.jobmanager.dispatcher;

import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.COUNT;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.JOB_ID;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.Leader;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch job recovery through the dispatcher, as {@link DispatcherRecoveryHarness} plays it: the next
 * leader keeps the finished sources and runs only the count again, shows in the job's status whether
 * its events are recorded and how long it went without a leader, and a job cancelled while it waits
 * for its TaskManagers never resumes.
 */
class DispatcherRecoveryTakeOverTest {
    @TempDir
    Path tempDir;

    private DispatcherRecoveryHarness harness;

    @BeforeEach
    void createHarness() {
        harness = new DispatcherRecoveryHarness(tempDir);
    }

    @AfterEach
    void closeLeaders() {
        // The test's temp dir is deleted after this.
        harness.close();
    }

    @Test
    void theStatusOfARunningJobTellsWhetherItsEventsAreRecorded() throws IOException {
        harness.firstLeaderDiesWhileTheCountRuns();
        Files.delete(harness.eventLogFiles().get(0));
        Files.delete(harness.eventLogDirectory());
        // The log's directory cannot be created: recording stops, the job goes on.
        Files.writeString(harness.eventLogDirectory(), "in the way");
        Leader second = harness.recovered(harness.leader("session-2"));
        harness.register(second, List.of());
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();
        harness.runSources(second, second.deployments(SOURCE));

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> !harness.status(second).getEventLog().getStoppedCause().isEmpty());
        JobStatus status = harness.status(second);
        assertThat(status.getState()).isEqualTo(JobState.JOB_RUNNING);
        assertThat(status.getEventLog().getWrittenEvents()).isZero();
        assertThat(status.getEventLog().getStoppedCause()).contains(harness.eventLogDirectory().toString());
        assertThat(status.getEventLog().getDroppedEvents()).isPositive();
    }

    @Test
    void theNextLeaderKeepsTheFinishedSourcesAndRunsOnlyTheCountAgain() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        int countTasks = harness.eventsOnDisk().stream().filter(e -> e.hasVertexInitialized()
                && e.getVertexInitialized().getVertex() == COUNT).findFirst().orElseThrow()
                .getVertexInitialized().getParallelism();

        Leader second = harness.leader("session-2");
        // Elected a while before its main thread began the take-over.
        harness.main.advance(1_000);
        long electedAtMs = harness.main.now() - 250;
        CompletableFuture<Void> recovered = second.dispatcher().recover(electedAtMs);
        harness.main.runDue();
        assertThat(recovered).isCompleted();
        harness.register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();

        assertThat(harness.status(second).getLeaderElectedAtMs()).isEqualTo(electedAtMs);
        assertThat(harness.status(second).getTakenOverAtMs() - harness.status(second).getLeaderElectedAtMs())
                .as("the status shows how long the job went without a leader after the crash was detected")
                .isGreaterThanOrEqualTo(250);
        assertThat(second.deployments(SOURCE)).isEmpty();
        assertThat(second.deployments(COUNT)).hasSize(countTasks).allSatisfy(d -> {
            assertThat(d.attemptNumber()).isEqualTo(1);
            assertThat(d.task().getInputs(0).getProducersList()).extracting(p -> p.getPartitionId() + "@" + p.getTmId())
                    .containsExactlyElementsOf(sourceOutputs);
        });
        assertThat(second.taskManagers().releases()).as("kept partitions are not released").isEmpty();
        assertThat(harness.status(second).getRestoredTasks()).isEqualTo(2);

        second.deployments(COUNT).forEach(d -> harness.finish(second, d));
        harness.awaitCleanResult();
        assertThat(harness.results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aJobCancelledWhileItWaitsForItsTaskManagersNeverResumes() {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        Leader second = harness.recovered(harness.leader("session-2"));
        // Only tm-1 comes back: the job waits for tm-2's source output.
        harness.register(second, sourceOutputs.stream().filter(p -> p.endsWith("@tm-1")).toList());
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();
        assertThat(second.taskManagers().deployments()).as("still waiting").isEmpty();
        assertThat(harness.status(second).getState()).as("a job being recovered is running to its user, not CREATED")
                .isEqualTo(JobState.JOB_RUNNING);

        second.dispatcher().cancel(JOB_ID);
        harness.awaitCleanResult();
        assertThat(harness.results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.CANCELED);
        assertThat(second.taskManagers().releases()).contains(new Release("tm-1", JOB_ID, List.of(), true));

        harness.main.advance(60_000);
        assertThat(second.taskManagers().deployments()).as("the wait ended, but the job stays cancelled").isEmpty();
        assertThat(harness.status(second).getState()).isEqualTo(JobState.JOB_CANCELED);
    }
}

package io.duraflow.jobmanager.dispatcher;

import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.COUNT;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.JOB_ID;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.SOURCE;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.describe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.Leader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.StatusRuntimeException;
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
 * Batch job recovery through the dispatcher of a count task whose FINISHED report the first leader
 * never got, as {@link DispatcherRecoveryHarness} plays it: its TaskManager carries the finish to
 * the next leader with its registration, which logs it and keeps the task; a finish that cannot be
 * logged fails the registration and is ignored when the TaskManager registers again.
 */
class DispatcherRecoveryCarriedFinishTest {
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
    void aCountTaskWhoseFinishTheFirstLeaderNeverGotIsKeptFromTheFinishItsTaskManagerCarried() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        // WordCount's count runs as one task here: with its finish kept, nothing is left to run.
        Deployment lost = harness.firstCountDeployments.get(0);
        String otherTm = lost.tmId().equals("tm-1") ? "tm-2" : "tm-1";
        // Store I/O waits for the test: the job's cleanup would delete the log it reads back.
        ManualMailbox io = new ManualMailbox();
        Leader second = harness.leader("session-2", io);
        CompletableFuture<Void> recovered = second.dispatcher().recover();
        io.runDue();
        harness.main.runDue();
        assertThat(recovered).isCompleted();
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();

        assertThat(registerWithReports(second, otherTm, sourceOutputs, List.of())).isCompleted();
        assertThat(second.taskManagers().deployments()).as("waits for the other TaskManager").isEmpty();
        // Its registration brings the last source output the recovery waits for, and the lost finish.
        assertThat(registerWithReports(second, lost.tmId(), sourceOutputs, List.of(lostFinish(lost))))
                .isCompleted();

        assertThat(second.deployments(SOURCE)).isEmpty();
        assertThat(describe(second.deployments(COUNT))).as("the count task whose finish was carried is kept")
                .hasSize(harness.firstCountDeployments.size() - 1)
                .doesNotContain(describe(lost)).allMatch(d -> d.endsWith("#1"));
        assertThat(harness.status(second).getRestoredTasks()).isEqualTo(2 + 1);
        assertThat(harness.eventsOnDisk()).as("the finish is in the durable log")
                .filteredOn(JobEvent::hasExecutionFinished)
                .extracting(JobEvent::getExecutionFinished)
                .filteredOn(e -> e.getVertex() == COUNT).singleElement().satisfies(e -> {
                    assertThat(e.getSubtask()).isEqualTo(lost.subtask());
                    assertThat(e.getAttempt()).isZero();
                    assertThat(e.getTmId()).isEqualTo(lost.tmId());
                    assertThat(e.getTmAddress()).isEqualTo(lost.tmId() + ".test:6122");
                    assertThat(e.getRecordsOut()).isEqualTo(2);
                    assertThat(e.getCollectedList()).extracting(c -> c.getName()).containsExactly("lost-finish");
                });

        second.deployments(COUNT).forEach(d -> harness.finish(second, d));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    io.runDue();
                    harness.main.runDue();
                    return harness.results.hasCleanJobResultEntry(JOB_ID);
                });
        var result = harness.results.getResult(JOB_ID).orElseThrow();
        assertThat(result.state()).isEqualTo(JobOutcome.FINISHED);
        assertThat(result.collected()).as("the kept task's records are in the result")
                .anySatisfy(c -> assertThat(c.data()).containsExactly(1, 42, 1, 43));
    }

    @Test
    void aFinishThatCannotBeLoggedFailsTheRegistrationAndIsIgnoredWhenItRegistersAgain() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        Deployment lost = harness.firstCountDeployments.get(0);
        String otherTm = lost.tmId().equals("tm-1") ? "tm-2" : "tm-1";
        Leader second = harness.recovered(harness.leader("session-2"));
        // The job's new event log cannot be created once the old one was read.
        for (Path file : harness.eventLogFiles()) {
            Files.delete(file);
        }
        Files.delete(harness.eventLogDirectory());
        Files.writeString(harness.eventLogDirectory(), "in the way");
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();
        registerWithReports(second, otherTm, sourceOutputs, List.of());

        CompletableFuture<Void> refused = registerWithReports(second, lost.tmId(), sourceOutputs,
                List.of(lostFinish(lost)));

        assertThat(refused).failsWithin(Duration.ZERO).withThrowableThat().havingRootCause()
                .isInstanceOf(StatusRuntimeException.class)
                .withMessageContaining("UNAVAILABLE").withMessageContaining("register again");
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).as("not registered")
                .doesNotContainValue(lost.tmId());
        assertThat(second.taskManagers().deployments()).as("nothing planned").isEmpty();

        assertThat(registerWithReports(second, lost.tmId(), sourceOutputs, List.of(lostFinish(lost))))
                .as("registering again, the finish is ignored").isCompleted();
        assertThat(describe(second.deployments(COUNT))).as("so the task runs again").contains("v1/"
                + lost.subtask() + "#1");
    }

    /**
     * A TaskManager registers as over gRPC: through the dispatcher, with the partitions it kept
     * ("partition id@TaskManager id", only its own are taken) and the finishes it carried.
     */
    private CompletableFuture<Void> registerWithReports(Leader leader, String tmId, List<String> heldPartitions,
            List<TaskStateUpdate> reports) {
        RegisterTaskManagerRequest.Builder request = RegisterTaskManagerRequest.newBuilder().setTmId(tmId)
                .setAddress(tmId + ".test:6122").setSlots(2).addAllEarlierFinishedReports(reports);
        heldPartitions.stream().filter(p -> p.endsWith("@" + tmId)).forEach(p -> request.addHeldPartitions(
                HeldPartition.newBuilder().setJobId(JOB_ID).setPartitionId(p.substring(0, p.indexOf('@')))));
        CompletableFuture<Void> registered = leader.dispatcher().registerTaskManager(request.build());
        // The answer waits for the job event writer's thread.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    harness.main.runDue();
                    return registered.isDone();
                });
        return registered;
    }

    /** What a count task's TaskManager kept of its FINISHED report when the first leader died before it arrived. */
    private static TaskStateUpdate lostFinish(Deployment d) {
        return TaskStateUpdate.newBuilder().setJmSessionId(d.task().getJmSessionId()).setTmId(d.tmId())
                .setAttempt(d.attempt()).setState(TaskState.FINISHED).setRecordsIn(5).setRecordsOut(2)
                .addCollected(CollectedResult.newBuilder().setName("lost-finish").setSubtask(d.subtask())
                        .setRecords(2).setData(ByteString.copyFrom(new byte[] {1, 42, 1, 43})))
                .build();
    }
}

package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.TaskState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Kept tasks that no recovery adopts are cancelled where they run, one job's only, by the attempt they reported. */
class KeptTasksTest {
    private final ManualMailbox main = new ManualMailbox();
    private final RecordingGateways gateways = new RecordingGateways(main);
    private final ResourceManager resourceManager = new ResourceManager(main, main::now, 10_000, gateways);
    private final KeptTasks keptTasks = new KeptTasks(resourceManager);

    private static AttemptId attempt(String jobId, int vertex, int subtask, int attempt) {
        return AttemptId.newBuilder().setJobId(jobId).setVertex(vertex).setSubtask(subtask).setAttempt(attempt)
                .build();
    }

    private static HeldTask held(AttemptId attempt) {
        return HeldTask.newBuilder().setAttempt(attempt).setState(TaskState.RUNNING).setDeployedBySession("old")
                .setParallelism(2).build();
    }

    private void registerWithKeptTasks(String tmId, AttemptId... attempts) {
        resourceManager.register(tmId, tmId + ".test:6122", 4, List.of(), "r-" + tmId,
                java.util.Arrays.stream(attempts).map(KeptTasksTest::held).toList());
    }

    @Test
    void theKeptTasksOfOneJobAreCancelledOnTheirTaskManagersAndTheOtherJobsKeepTheirs() {
        AttemptId a0 = attempt("job-a", 1, 0, 2);
        AttemptId a1 = attempt("job-a", 1, 1, 3);
        AttemptId b0 = attempt("job-b", 0, 0, 0);
        registerWithKeptTasks("tm-1", a0, b0);
        registerWithKeptTasks("tm-2", a1);

        keptTasks.cancelKeptTasks("job-a");

        assertThat(gateways.cancels()).containsExactlyInAnyOrder(new RecordingGateways.Cancel("tm-1", a0),
                new RecordingGateways.Cancel("tm-2", a1));
        assertThat(resourceManager.reportedTasks("job-a")).isEmpty();
        assertThat(resourceManager.reportedTasks("job-b")).extracting(ReportedTask::tmId).containsExactly("tm-1");
    }

    @Test
    void onlyTheGivenReportsAreCancelledUnderTheAttemptTheyReported() {
        AttemptId a0 = attempt("job-a", 1, 0, 2);
        AttemptId a1 = attempt("job-a", 1, 1, 3);
        registerWithKeptTasks("tm-1", a0, a1);
        ReportedTask first = resourceManager.reportedTasks("job-a").stream()
                .filter(report -> report.key().subtask() == 0).findFirst().orElseThrow();

        assertThat(KeptTasks.attemptOf("job-a", first)).isEqualTo(a0);
        keptTasks.cancel("job-a", List.of(first));

        assertThat(gateways.cancels()).containsExactly(new RecordingGateways.Cancel("tm-1", a0));
        assertThat(resourceManager.isHeld("tm-1", a1)).isTrue();
    }
}

package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldTask;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The record of tasks TaskManagers kept running across a leader change, until each is decided on. */
class KeptFromEarlierLeaderTest {
    private final KeptFromEarlierLeader kept = new KeptFromEarlierLeader();

    private static AttemptId attempt(String jobId, int subtask) {
        return AttemptId.newBuilder().setJobId(jobId).setSubtask(subtask).build();
    }

    private static HeldTask task(AttemptId attempt) {
        return HeldTask.newBuilder().setAttempt(attempt).setState(io.duraflow.rpc.proto.TaskState.RUNNING).build();
    }

    @Test
    void keptTasksAreReportedByJobUntilTheyAreDecidedOn() {
        kept.add("tm-1", List.of(), List.of(task(attempt("a", 0)), task(attempt("b", 0))));
        kept.add("tm-2", List.of(), List.of(task(attempt("a", 1))));

        assertThat(kept.reportedTasks("a")).extracting(ReportedTask::tmId).containsExactly("tm-1", "tm-2");
        assertThat(kept.isHeld("tm-1", attempt("a", 0))).isTrue();
        assertThat(kept.isHeld("tm-2", attempt("a", 0))).as("on another TaskManager").isFalse();
        assertThat(kept.heldTasksOn("tm-1")).containsExactly(attempt("a", 0), attempt("b", 0));

        assertThat(kept.forgetTasks("tm-1", List.of(attempt("a", 0), attempt("a", 1)))).hasSize(1);
        assertThat(kept.forgetTasks("tm-1", List.of(attempt("a", 0)))).as("decided on already").isEmpty();
        assertThat(kept.forgetTasks("tm-9", List.of(attempt("a", 0)))).isEmpty();
        assertThat(kept.reportedTasks("a")).extracting(ReportedTask::tmId).containsExactly("tm-2");
        assertThat(kept.heldTasksOn("tm-1")).containsExactly(attempt("b", 0));
    }

    @Test
    void anEndedRegistrationTakesWhatItKeptAlong() {
        kept.add("tm-1", List.of(io.duraflow.rpc.proto.HeldPartition.newBuilder().setJobId("a")
                .setPartitionId("a-v0-s0-a0-e0").build()), List.of(task(attempt("a", 0))));

        kept.ended("tm-1");

        assertThat(kept.reportedTasks("a")).isEmpty();
        assertThat(kept.heldTasksOn("tm-1")).isEmpty();
        assertThat(kept.heldPartitions("a")).isEmpty();
    }
}

package io.duraflow.jobmanager.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.HeldTaskInput;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.SplitsReceived;
import io.duraflow.rpc.proto.TaskState;
import org.junit.jupiter.api.Test;

/** A registration's {@code held_tasks} as the adoption planner sees them ({@link ReportedTasks}). */
class AdoptionPlannerReportConversionTest {
    private static final AttemptId ATTEMPT = AttemptId.newBuilder().setJobId("job-1").setVertex(1).setSubtask(0)
            .setAttempt(2).build();

    @Test
    void aBatchTaskKeepsItsInputsOutputsAndSplits() throws Exception {
        HeldTask held = HeldTask.newBuilder().setAttempt(ATTEMPT).setState(TaskState.RUNNING)
                .setDeployedBySession("session-1").setParallelism(2).setRecordsIn(10).setRecordsOut(3)
                .addInputs(HeldTaskInput.newBuilder().setEdgeId(0).setPartitionId("p-0").setProducerTmId("tm-b")
                        .setSubpartitionFrom(0).setSubpartitionTo(64))
                .addOutputs(OutputSpec.newBuilder().setEdgeId(1).setPartitionId("p-out").setSubpartitions(128))
                .addSplits(ByteString.copyFromUtf8("split-1")).build();
        // It crosses the wire inside a registration: a field added, none renumbered.
        RegisterTaskManagerRequest registration = RegisterTaskManagerRequest.parseFrom(RegisterTaskManagerRequest
                .newBuilder().setTmId("tm-a").addHeldTasks(held).build().toByteArray());

        ReportedTask task = ReportedTasks.fromProto("tm-a", registration.getHeldTasks(0), false);

        assertThat(task.name()).isEqualTo("v1/0#2 on tm-a");
        assertThat(task.state()).isEqualTo(ReportedTask.State.RUNNING);
        assertThat(task.session()).isEqualTo("session-1");
        assertThat(task.parallelism()).isEqualTo(2);
        ReportedTask.BatchProgress progress = (ReportedTask.BatchProgress) task.progress();
        assertThat(progress.recordsIn()).isEqualTo(10);
        assertThat(progress.inputs()).containsExactly(new ReportedTask.InputRead(0, "p-0", "tm-b", 0, 64));
        assertThat(progress.outputs()).containsExactly(new ReportedTask.OutputPartition(1, "p-out"));
        assertThat(progress.splits()).containsExactly(AdoptionFixtures.utf8("split-1"));
    }

    @Test
    void aStreamingTaskKeepsItsCheckpointsAndSplitArrivals() {
        HeldTask held = HeldTask.newBuilder().setAttempt(ATTEMPT).setState(TaskState.FINISHED).setParallelism(2)
                .setRunId("run-1").setRestoredCheckpointId(5).setLastAcknowledgedCheckpointId(8)
                .setLastCompletedCheckpointId(7)
                .addSplitsReceived(SplitsReceived.newBuilder().setAfterCheckpointId(6)
                        .addSplits(ByteString.copyFromUtf8("a")).addSplits(ByteString.copyFromUtf8("b")))
                .build();

        ReportedTask task = ReportedTasks.fromProto("tm-a", held, true);

        assertThat(task.state()).isEqualTo(ReportedTask.State.FINISHED);
        ReportedTask.StreamingProgress progress = (ReportedTask.StreamingProgress) task.progress();
        assertThat(progress.runId()).isEqualTo("run-1");
        assertThat(progress.restoredCheckpointId()).isEqualTo(5);
        assertThat(progress.lastAcknowledgedId()).isEqualTo(8);
        assertThat(progress.lastCompletedId()).isEqualTo(7);
        assertThat(progress.splitsReceivedSince(6)).isEqualTo(2);
        assertThat(progress.splitsReceivedSince(7)).isZero();
    }

    @Test
    void aReportWithoutAttemptOrStateIsRefusedWithTheTaskManager() {
        assertThatThrownBy(() -> ReportedTasks.fromProto("tm-a", HeldTask.getDefaultInstance(), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a held task reported by tm-a names no attempt");
        assertThatThrownBy(() -> ReportedTasks.fromProto("tm-a", HeldTask.newBuilder().setAttempt(ATTEMPT).build(),
                false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("held task job-1 v1/0#2 reported by tm-a has state TASK_STATE_UNSPECIFIED");
    }
}

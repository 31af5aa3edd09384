package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.HeldTaskInput;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskRestore;
import org.junit.jupiter.api.Test;

/** The facts of a held task that its deployment fixes. */
class HeldTasksTest {
    private static final AttemptId ATTEMPT = AttemptId.newBuilder().setJobId("job-1").setVertex(1).setSubtask(1)
            .setAttempt(3).build();

    @Test
    void aBatchConsumerReportsEveryProducerRangeItReadsAndWhatItWrites() {
        TaskDeployment deployment = TaskDeployment.newBuilder().setJmSessionId("session-1").setAttempt(ATTEMPT)
                .setParallelism(2)
                .addInputs(InputGate.newBuilder().setEdgeId(0).setSubpartitionFrom(64).setSubpartitionTo(128)
                        .addProducers(PartitionLocation.newBuilder().setPartitionId("p-0").setTmId("tm-a")
                                .setTmAddress("a:1"))
                        .addProducers(PartitionLocation.newBuilder().setPartitionId("p-1").setTmId("tm-b")
                                .setTmAddress("b:1")))
                .addOutputs(OutputSpec.newBuilder().setEdgeId(1).setPartitionId("p-out").setSubpartitions(128))
                .build();

        HeldTask held = HeldTasks.fromDeployment(deployment).build();

        assertThat(held.getAttempt()).isEqualTo(ATTEMPT);
        assertThat(held.getDeployedBySession()).isEqualTo("session-1");
        assertThat(held.getParallelism()).isEqualTo(2);
        assertThat(held.getInputsList()).containsExactly(
                HeldTaskInput.newBuilder().setEdgeId(0).setPartitionId("p-0").setProducerTmId("tm-a")
                        .setSubpartitionFrom(64).setSubpartitionTo(128).build(),
                HeldTaskInput.newBuilder().setEdgeId(0).setPartitionId("p-1").setProducerTmId("tm-b")
                        .setSubpartitionFrom(64).setSubpartitionTo(128).build());
        assertThat(held.getOutputsList()).containsExactly(deployment.getOutputs(0));
        assertThat(held.getRunId()).isEmpty();
        assertThat(held.getRestoredCheckpointId()).isZero();
    }

    @Test
    void aStreamingTaskReportsItsRunAndTheCheckpointItRestored() {
        TaskDeployment deployment = TaskDeployment.newBuilder().setJmSessionId("session-2").setAttempt(ATTEMPT)
                .setParallelism(4).setRunId("run-7")
                .setRestore(TaskRestore.newBuilder().setCheckpointId(12)).build();

        HeldTask held = HeldTasks.fromDeployment(deployment).build();

        assertThat(held.getRunId()).isEqualTo("run-7");
        assertThat(held.getRestoredCheckpointId()).isEqualTo(12);
        assertThat(held.getInputsList()).isEmpty();
    }
}

package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FsPath;
import io.duraflow.rpc.proto.CheckpointFailureData;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import org.junit.jupiter.api.Test;

class CheckpointMessagesTest {
    @Test
    void triggersMetricsAndFailuresRoundTrip() {
        CheckpointTask task = new CheckpointTask(2, 1, 3);
        CheckpointTrigger trigger = new CheckpointTrigger(7, 1_234, CheckpointKind.SAVEPOINT,
                FsPath.parse("hdfs://nn:8020/savepoints/savepoint-j-7"));

        TriggerCheckpointRequest request = CheckpointMessages.toProto("j", task, trigger);

        assertThat(CheckpointMessages.fromProto(request)).isEqualTo(trigger);
        assertThat(CheckpointMessages.fromProto(request.getAttempt())).isEqualTo(task);
        assertThat(request.getAttempt().getJobId()).isEqualTo("j");
        CheckpointMetrics metrics = new CheckpointMetrics(1, 2, 3, 4);
        assertThat(CheckpointMessages.fromProto(CheckpointMessages.toProto(metrics))).isEqualTo(metrics);
        for (CheckpointFailureReason reason : CheckpointFailureReason.values()) {
            CheckpointFailure failure = new CheckpointFailure(7, reason, "why", reason.ordinal() % 2 == 0 ? null : "t");
            assertThat(CheckpointMessages.fromProto(CheckpointMessages.toProto(failure))).isEqualTo(failure);
        }
    }

    @Test
    void anUnknownReasonIsAnError() {
        assertThatThrownBy(() -> CheckpointMessages.fromProto(CheckpointFailureData.newBuilder()
                .setReason("MOON_PHASE").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown checkpoint failure reason 'MOON_PHASE'");
    }
}

package io.duraflow.jobmanager.recovery;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.HeldTaskInput;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.SplitsReceived;
import java.util.ArrayList;
import java.util.List;

/** {@link ReportedTask}s from the {@code HeldTask}s of a registration. */
public final class ReportedTasks {
    private ReportedTasks() {}

    /**
     * The planner's view of a task that TaskManager {@code tmId} reported.
     *
     * @param streaming whether its job runs in streaming mode (which facts the report carries)
     * @throws IllegalArgumentException if the report has no attempt or a state the planner does not know
     */
    public static ReportedTask fromProto(String tmId, HeldTask task, boolean streaming) {
        if (!task.hasAttempt()) {
            throw new IllegalArgumentException("a held task reported by " + tmId + " names no attempt");
        }
        ReportedTask.State state = switch (task.getState()) {
            case RUNNING -> ReportedTask.State.RUNNING;
            case FINISHED -> ReportedTask.State.FINISHED;
            case FAILED -> ReportedTask.State.FAILED;
            case CANCELED -> ReportedTask.State.CANCELED;
            default -> throw new IllegalArgumentException("held task " + task.getAttempt().getJobId() + " v"
                    + task.getAttempt().getVertex() + "/" + task.getAttempt().getSubtask() + "#"
                    + task.getAttempt().getAttempt() + " reported by " + tmId + " has state " + task.getState());
        };
        ReportedTask.Progress progress;
        if (streaming) {
            List<ReportedTask.SplitsReceived> received = new ArrayList<>();
            for (SplitsReceived splits : task.getSplitsReceivedList()) {
                received.add(new ReportedTask.SplitsReceived(splits.getAfterCheckpointId(), bytes(splits.getSplitsList())));
            }
            progress = new ReportedTask.StreamingProgress(task.getRunId(), task.getRestoredCheckpointId(),
                    task.getLastAcknowledgedCheckpointId(), task.getLastCompletedCheckpointId(), received);
        } else {
            List<ReportedTask.InputRead> inputs = new ArrayList<>();
            for (HeldTaskInput input : task.getInputsList()) {
                inputs.add(new ReportedTask.InputRead(input.getEdgeId(), input.getPartitionId(),
                        input.getProducerTmId(), input.getSubpartitionFrom(), input.getSubpartitionTo()));
            }
            List<ReportedTask.OutputPartition> outputs = new ArrayList<>();
            for (OutputSpec output : task.getOutputsList()) {
                outputs.add(new ReportedTask.OutputPartition(output.getEdgeId(), output.getPartitionId()));
            }
            progress = new ReportedTask.BatchProgress(task.getRecordsIn(), task.getRecordsOut(), inputs, outputs,
                    bytes(task.getSplitsList()));
        }
        return new ReportedTask(tmId, new ExecutionKey(task.getAttempt().getVertex(), task.getAttempt().getSubtask()),
                task.getAttempt().getAttempt(), state, task.getParallelism(), task.getDeployedBySession(), progress);
    }

    private static List<byte[]> bytes(List<ByteString> list) {
        List<byte[]> copy = new ArrayList<>(list.size());
        for (ByteString bytes : list) {
            copy.add(bytes.toByteArray());
        }
        return copy;
    }
}

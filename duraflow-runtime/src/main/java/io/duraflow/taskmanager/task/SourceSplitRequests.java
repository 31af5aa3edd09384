package io.duraflow.taskmanager.task;

import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.ReportedWatermark;
import io.duraflow.rpc.proto.RequestSplit;
import java.util.ArrayList;
import java.util.List;

/**
 * A source reader's context in a batch or streaming task: split requests go to the enumerator as
 * operator events, and {@link #applyToReader} gives the reader what the enumerator answered.
 */
public record SourceSplitRequests(TaskEnvironment environment, AttemptId attempt, int parallelism, int nodeId,
        MetricGroup metrics) implements SourceReaderContext {

    @Override
    public int subtaskIndex() {
        return attempt.getSubtask();
    }

    @Override
    public void sendSplitRequest() {
        environment.sendOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(attempt).setNodeId(nodeId)
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
    }

    /** Reports the reader's watermark to its alignment group ({@code Long.MAX_VALUE}: idle or ended). */
    public void reportWatermark(long watermark) {
        environment.sendOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(attempt).setNodeId(nodeId)
                .setEvent(OperatorEvent.newBuilder().setReportedWatermark(ReportedWatermark.newBuilder()
                        .setWatermark(watermark))).build());
    }

    /** Task thread: gives a source reader what its enumerator sent (splits, or that no more come). */
    public static void applyToReader(SourceReader<Object, SourceSplit> reader, SplitSerializer<SourceSplit> splitSerializer,
            OperatorEvent event) {
        switch (event.getEventCase()) {
            case ADD_SPLITS -> {
                List<SourceSplit> splits = new ArrayList<>();
                for (var bytes : event.getAddSplits().getSplitsList()) {
                    splits.add(splitSerializer.fromBytes(bytes.toByteArray()));
                }
                reader.addSplits(splits);
            }
            case NO_MORE_SPLITS -> reader.notifyNoMoreSplits();
            default -> throw new IllegalStateException("a source reader cannot handle operator event "
                    + event.getEventCase());
        }
    }
}

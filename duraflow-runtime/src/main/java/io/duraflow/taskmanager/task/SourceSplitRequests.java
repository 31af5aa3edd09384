package io.duraflow.taskmanager.task;

import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RequestSplit;

/** A source reader's context in a batch or streaming task: split requests go to the enumerator as operator events. */
record SourceSplitRequests(TaskEnvironment environment, AttemptId attempt, int parallelism, int nodeId)
        implements SourceReaderContext {

    @Override
    public int subtaskIndex() {
        return attempt.getSubtask();
    }

    @Override
    public void sendSplitRequest() {
        environment.sendOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(attempt).setNodeId(nodeId)
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
    }
}

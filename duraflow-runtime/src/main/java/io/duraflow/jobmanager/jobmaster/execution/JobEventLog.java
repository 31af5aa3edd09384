package io.duraflow.jobmanager.jobmaster.execution;

import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;

/**
 * What a job master tells the job event log, so that a new leader can rebuild the job's
 * progress after a crash. Called on the main thread; implementations must not block.
 */
public interface JobEventLog {
    /** A vertex's parallelism and the key-group ranges of its tasks were decided. */
    void vertexInitialized(int vertex, int parallelism, int[] rangeBounds);

    /** An attempt finished; {@code update} carries its partitions, counters and collected records. */
    void executionFinished(Execution execution, TaskStateUpdate update);

    /** These executions were replaced by new attempts (their numbers are the new ones). */
    void executionsReset(List<Execution> executions, String reason);

    /** The executions' current attempts were deployed to TaskManager {@code tmId}. */
    default void executionsDeployed(String tmId, List<Execution> executions) {}

    /** The source coordinator of {@code nodeId} gave splits to a subtask's attempt. */
    void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits);

    /** Splits of a reset subtask went back to the enumerator of {@code nodeId}. */
    void splitsReturned(int nodeId, int subtask, int count);

    /**
     * The state of the enumerator of {@code nodeId}, as of every split event logged before it, or
     * null if it cannot snapshot mid-job ({@code SplitEnumerator.supportsBatchSnapshot}). A job
     * master logs it before the finish of a source subtask whenever splits changed hands since the
     * last one, so replay never needs an older snapshot for a finished task.
     */
    void coordinatorState(int nodeId, byte[] enumeratorState);

    /** The job starts over from scratch: replay ignores every event before this one. */
    void runStarted(String reason);

    /** Logs nothing: recovery is off. */
    JobEventLog NONE = new JobEventLog() {
        @Override
        public void vertexInitialized(int vertex, int parallelism, int[] rangeBounds) {}

        @Override
        public void runStarted(String reason) {}

        @Override
        public void executionFinished(Execution execution, TaskStateUpdate update) {}

        @Override
        public void executionsReset(List<Execution> executions, String reason) {}

        @Override
        public void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits) {}

        @Override
        public void splitsReturned(int nodeId, int subtask, int count) {}

        @Override
        public void coordinatorState(int nodeId, byte[] enumeratorState) {}
    };
}

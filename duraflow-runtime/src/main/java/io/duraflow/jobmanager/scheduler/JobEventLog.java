package io.duraflow.jobmanager.scheduler;

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

    /**
     * The source coordinator of {@code nodeId} gave splits to a subtask's attempt; {@code
     * enumeratorState} is the enumerator right after, so replay never needs an older snapshot, or
     * null if the enumerator cannot snapshot mid-job ({@code SplitEnumerator.supportsBatchSnapshot}).
     */
    void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits, byte[] enumeratorState);

    /**
     * Splits of a reset subtask went back to the enumerator, whose state is then {@code
     * enumeratorState} (null if it cannot snapshot mid-job).
     */
    void splitsReturned(int nodeId, int subtask, int count, byte[] enumeratorState);

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
        public void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits, byte[] enumeratorState) {}

        @Override
        public void splitsReturned(int nodeId, int subtask, int count, byte[] enumeratorState) {}
    };
}

package io.duraflow.jobmanager.recovery;

import java.util.List;
import java.util.Objects;

/**
 * A task that a TaskManager kept across a leader change and reported when it registered with the
 * new leader ({@code RegisterTaskManagerRequest.held_tasks}, converted by {@link ReportedTasks}):
 * the facts {@link AdoptionPlanner} decides over. One job's tasks; the caller groups by job id.
 *
 * @param tmId        the TaskManager that reported it (and runs it)
 * @param key         its subtask
 * @param attempt     its attempt number
 * @param state       where it stands
 * @param parallelism its vertex's parallelism as deployed
 * @param session     the leadership that deployed it
 * @param progress    what it did so far: batch or streaming facts
 */
public record ReportedTask(String tmId, ExecutionKey key, int attempt, State state, int parallelism, String session,
        Progress progress) {

    public ReportedTask {
        Objects.requireNonNull(tmId, "tmId");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(progress, "progress");
    }

    /** Where a reported task stands. */
    public enum State {
        /** It runs (or waits for its plan, or for output that needs a JobManager). */
        RUNNING,
        /** It finished; its final report was not acknowledged by any leader. */
        FINISHED,
        /** It failed while no leader was up. */
        FAILED,
        /** It was cancelled while no leader was up. */
        CANCELED
    }

    /** What a task did so far, by the kind of job. */
    public sealed interface Progress permits BatchProgress, StreamingProgress {}

    /**
     * A batch task's facts.
     *
     * @param inputs  every range of a finished partition it reads
     * @param outputs the partitions it writes (once finished: produced), one per output edge
     * @param splits  a source reader's splits, every one its attempt received, in order; empty for
     *                other tasks
     */
    public record BatchProgress(long recordsIn, long recordsOut, List<InputRead> inputs, List<OutputPartition> outputs,
            List<byte[]> splits) implements Progress {
        public BatchProgress {
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
            splits = splits.stream().map(byte[]::clone).toList();
        }

        @Override
        public List<byte[]> splits() {
            return splits.stream().map(byte[]::clone).toList();
        }
    }

    /** The subpartitions {@code [from, to)} of a partition that a batch task reads from its producer's TaskManager. */
    public record InputRead(int edgeId, String partitionId, String producerTmId, int from, int to) {
        public InputRead {
            Objects.requireNonNull(partitionId, "partitionId");
            Objects.requireNonNull(producerTmId, "producerTmId");
        }
    }

    /** A partition a batch task writes on one of its output edges. */
    public record OutputPartition(int edgeId, String partitionId) {
        public OutputPartition {
            Objects.requireNonNull(partitionId, "partitionId");
        }
    }

    /**
     * A streaming task's facts. Checkpoint ids are 0 for "none".
     *
     * @param runId                 the run of the job it belongs to ({@code TaskDeployment.run_id})
     * @param restoredCheckpointId  the checkpoint (or savepoint) its state started from
     * @param lastAcknowledgedId    the newest checkpoint it acknowledged
     * @param lastCompletedId       the newest checkpoint it was told completed
     * @param splitsReceived        a source reader's split arrivals (see {@link SplitsReceived}); empty
     *                              for other tasks
     */
    public record StreamingProgress(String runId, long restoredCheckpointId, long lastAcknowledgedId,
            long lastCompletedId, List<SplitsReceived> splitsReceived) implements Progress {
        public StreamingProgress {
            Objects.requireNonNull(runId, "runId");
            splitsReceived = List.copyOf(splitsReceived);
        }

        /** How many splits arrived after the reader had snapshotted, or restored from, checkpoint {@code id} or a later one. */
        public int splitsReceivedSince(long id) {
            int count = 0;
            for (SplitsReceived received : splitsReceived) {
                if (received.afterCheckpointId() >= id) {
                    count += received.count();
                }
            }
            return count;
        }
    }

    /**
     * Splits that reached a streaming source reader after it had snapshotted (or restored from)
     * checkpoint {@code afterCheckpointId} (0: before its first snapshot, with empty state).
     */
    public record SplitsReceived(long afterCheckpointId, List<byte[]> splits) {
        public SplitsReceived {
            splits = splits.stream().map(byte[]::clone).toList();
        }

        @Override
        public List<byte[]> splits() {
            return splits.stream().map(byte[]::clone).toList();
        }

        public int count() {
            return splits.size();
        }
    }

    /** "v1/0#2 on tm-a", as in the planner's notes. */
    public String name() {
        return key + "#" + attempt + " on " + tmId;
    }
}

package io.duraflow.jobmanager.recovery;

import java.util.Objects;

/**
 * What a new leader does with one subtask of a job it takes over, decided by {@link
 * AdoptionPlanner}: exactly one of these per subtask of every vertex whose parallelism is known.
 */
public sealed interface TaskDecision permits TaskDecision.Adopt, TaskDecision.AlreadyFinished, TaskDecision.Restart {

    ExecutionKey key();

    /** One line for the log, the job's status and the demo. */
    String describe();

    /**
     * The running attempt is taken over as it is: the new leader's execution is RUNNING with this
     * attempt number on this TaskManager, and no deployment goes out.
     */
    record Adopt(ExecutionKey key, int attempt, String tmId) implements TaskDecision {
        public Adopt {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(tmId, "tmId");
        }

        @Override
        public String describe() {
            return key + "#" + attempt + " adopted on " + tmId;
        }
    }

    /**
     * The subtask finished and stays finished: as the recovered state (event log, or the reports
     * that agree with it) says, attempt {@code attempt} on {@code tmId}.
     */
    record AlreadyFinished(ExecutionKey key, int attempt, String tmId) implements TaskDecision {
        public AlreadyFinished {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(tmId, "tmId");
        }

        @Override
        public String describe() {
            return key + "#" + attempt + " finished on " + tmId;
        }
    }

    /**
     * The subtask runs again as {@code attempt}, above every attempt the log or any report named,
     * because of {@code reason}.
     */
    record Restart(ExecutionKey key, int attempt, String reason) implements TaskDecision {
        public Restart {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String describe() {
            return key + " runs again as #" + attempt + ": " + reason;
        }
    }
}

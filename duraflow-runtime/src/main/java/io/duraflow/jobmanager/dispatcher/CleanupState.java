package io.duraflow.jobmanager.dispatcher;

/**
 * Where the end of one job stands on this leader: its result is made durable, then everything
 * the job owns is deleted, retried per the cleanup strategy. Legal transitions:
 *
 * <pre>
 *   StoringResult --stored--> Running(1) --ok--> Done
 *   (recovered DIRTY entry)   Running(1)         |
 *                             Running(n) --failed, policy allows--> Retrying(n) --due--> Running(n + 1)
 *                             Running(n) --failed, policy exhausted--> GaveUp(n)
 *   StoringResult --failed--> (none: leadership is given up, the next leader decides)
 * </pre>
 *
 * {@link JobCleanup#transition} checks every change against this table and throws on any other.
 */
sealed interface CleanupState {
    /** The DIRTY result entry is being written; nobody may see the outcome before it is durable. */
    record StoringResult() implements CleanupState {
        @Override
        public boolean allows(CleanupState next) {
            return next instanceof Running r && r.attempt() == 1;
        }

        @Override
        public String describe() {
            return "storing the result";
        }
    }

    /** Attempt {@code attempt} (from 1) of releasing and deleting what the job owns ({@link JobResourceDeletion}). */
    record Running(int attempt) implements CleanupState {
        @Override
        public boolean allows(CleanupState next) {
            return next instanceof Done || next instanceof Retrying t && t.failedAttempt() == attempt
                    || next instanceof GaveUp g && g.attempts() == attempt;
        }

        @Override
        public String describe() {
            return "running (attempt " + attempt + ")";
        }
    }

    /** Attempt {@code failedAttempt} failed with {@code cause}; the next one is due at {@code nextAttemptAtMs}. */
    record Retrying(int failedAttempt, String cause, long nextAttemptAtMs) implements CleanupState {
        @Override
        public boolean allows(CleanupState next) {
            return next instanceof Running r && r.attempt() == failedAttempt + 1;
        }

        @Override
        public String describe() {
            return "attempt " + failedAttempt + " failed (" + cause + "); retrying";
        }
    }

    /** Everything is deleted and the result entry is CLEAN. */
    record Done() implements CleanupState {
        @Override
        public boolean allows(CleanupState next) {
            return false;
        }

        @Override
        public String describe() {
            return "done";
        }
    }

    /** The cleanup strategy allows no more attempts; the entry stays DIRTY and the next leader finishes it. */
    record GaveUp(int attempts, String cause) implements CleanupState {
        @Override
        public boolean allows(CleanupState next) {
            return false;
        }

        @Override
        public String describe() {
            return "failed after " + attempts + " attempts: " + cause;
        }
    }

    /** Whether {@code next} may follow this state. */
    boolean allows(CleanupState next);

    /** One line for logs and {@code duraflow status}. */
    String describe();
}

package io.duraflow.jobmanager.jobmaster.checkpointing;

/**
 * A job cannot take a savepoint now (a batch job, checkpointing off, not every task running, a
 * savepoint in progress; see {@link JobSavepoints}); the message says why, in one line.
 */
public final class SavepointRefusedException extends RuntimeException {
    SavepointRefusedException(String message) {
        super(message);
    }
}

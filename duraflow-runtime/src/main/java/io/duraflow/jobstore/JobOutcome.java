package io.duraflow.jobstore;

/** How a job ended, as recorded in the {@link JobResultStore}. */
public enum JobOutcome {
    /** Every task finished. */
    FINISHED,
    /** The job failed for good; {@link JobResultEntry#failure()} says why. */
    FAILED,
    /** A user cancelled the job. */
    CANCELED,
    /**
     * The job ended but its result is lost, e.g. its stored file is corrupt; the job must not run
     * again, and {@link JobResultEntry#failure()} says what happened.
     */
    UNKNOWN
}

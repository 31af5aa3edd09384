package io.duraflow.jobstore;

/**
 * A job result was created for a job id that already has one: the job ran (or is being cleaned
 * up) already, and a job id runs at most once per cluster.
 */
public final class JobResultEntryExistsException extends IllegalStateException {
    private final String jobId;
    private final boolean clean;

    public JobResultEntryExistsException(String jobId, boolean clean) {
        super("job " + jobId + " already has a " + (clean ? "clean" : "dirty")
                + " result in the job result store; a job id runs at most once per cluster");
        this.jobId = jobId;
        this.clean = clean;
    }

    public String jobId() {
        return jobId;
    }

    /** Whether the existing entry is marked clean (else it is dirty: cleanup still pending). */
    public boolean isClean() {
        return clean;
    }
}

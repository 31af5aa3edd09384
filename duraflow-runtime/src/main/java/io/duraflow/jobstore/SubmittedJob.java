package io.duraflow.jobstore;

import java.util.Map;
import java.util.Objects;

/**
 * A job as it was submitted: enough for a new leader to build its graph again and run it. Maps
 * are copied and sorted by key.
 *
 * @param jobId the job's id, unique within a cluster
 * @param jobClass the class that builds the job's graph
 * @param params the job's parameters
 * @param config configuration the job set for itself, {@code key -> text}
 * @param parallelism the parallelism the submitter asked for; 0 for the cluster's default
 * @param submittedAtMs when the job was submitted, in epoch milliseconds
 * @param restore what the job restores while it has no checkpoint of its own; null: empty state
 * @param jar the jar that holds {@code jobClass}; null: the class is on every process's class path
 */
public record SubmittedJob(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
        int parallelism, long submittedAtMs, RestoreSettings restore, JobJarRef jar) {

    /** A job whose class is on the class path. */
    public SubmittedJob(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
            int parallelism, long submittedAtMs, RestoreSettings restore) {
        this(jobId, jobClass, params, config, parallelism, submittedAtMs, restore, null);
    }

    /** A job that starts from empty state. */
    public SubmittedJob(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
            int parallelism, long submittedAtMs) {
        this(jobId, jobClass, params, config, parallelism, submittedAtMs, null, null);
    }

    /**
     * Whether {@code other} submits the same job as this: the same id, class, parameters,
     * configuration, parallelism, restore settings and jar (the submission time may differ).
     */
    public boolean sameSubmissionAs(SubmittedJob other) {
        return jobId.equals(other.jobId) && jobClass.equals(other.jobClass) && params.equals(other.params)
                && config.equals(other.config) && parallelism == other.parallelism
                && Objects.equals(restore, other.restore) && Objects.equals(jar, other.jar);
    }

    public SubmittedJob {
        JobIds.requireValid(jobId);
        Objects.requireNonNull(jobClass, "jobClass");
        params = JobResultEntry.sortedCopy(params, "params");
        config = JobResultEntry.sortedCopy(config, "config");
        if (parallelism < 0) {
            throw new IllegalArgumentException("job " + jobId + ": parallelism " + parallelism + " must not be negative");
        }
    }
}

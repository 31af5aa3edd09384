package io.duraflow.jobstore;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The submitted jobs that have not reached a terminal state: a new leader recovers and runs
 * every job listed here that has no entry in the {@link JobResultStore}. A job is put when it is
 * submitted and removed as part of its cleanup.
 *
 * <p>Methods block and are thread-safe. Job id arguments must be valid job ids, else
 * {@link IllegalArgumentException}.
 */
public interface JobGraphStore {
    /** Stores the job, replacing a job stored under the same id. */
    void put(SubmittedJob job) throws IOException;

    /**
     * The job stored under this id, if any.
     *
     * @throws CorruptStoreFileException if the stored job cannot be read
     */
    Optional<SubmittedJob> get(String jobId) throws IOException;

    /** Removes the job; does nothing if it is not stored, so cleanup can be retried. */
    void remove(String jobId) throws IOException;

    /** Ids of the stored jobs, sorted. */
    List<String> jobIds() throws IOException;
}

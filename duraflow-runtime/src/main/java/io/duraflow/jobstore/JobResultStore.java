package io.duraflow.jobstore;

import java.io.IOException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Durable record of the jobs of a cluster that reached a terminal state (DIRTY, then CLEAN), so a
 * new leader knows which jobs must not run again and which still need their cleanup. Methods block
 * and are thread-safe; called from an I/O thread, never the main thread. Life of an entry: see
 * docs/design/job-result-store.md#jobresultstore.
 */
public interface JobResultStore {
    /**
     * Records the result of a job whose resources are not cleaned up yet.
     *
     * @throws JobResultEntryExistsException if the job already has an entry, dirty or clean:
     *     a job id runs at most once per cluster
     * @throws IOException if the entry could not be stored durably; the job manager must not
     *     start cleaning up then
     */
    void createDirtyResult(JobResultEntry entry) throws IOException;

    /**
     * Marks that all resources of the job are cleaned up. Does nothing if the entry is clean
     * already; with delete-on-commit the entry is deleted instead, so a second call fails.
     *
     * @throws NoSuchElementException if the job has no entry
     */
    void markResultAsClean(String jobId) throws IOException;

    /** Whether the job has an entry, dirty or clean. */
    boolean hasJobResultEntry(String jobId) throws IOException;

    /** Whether the job has an entry that is not marked clean yet. */
    boolean hasDirtyJobResultEntry(String jobId) throws IOException;

    /** Whether the job has an entry that is marked clean. */
    boolean hasCleanJobResultEntry(String jobId) throws IOException;

    /**
     * The job's result, dirty or clean. An entry that cannot be read comes back with state
     * {@link JobOutcome#UNKNOWN} and a failure that says why, never as empty.
     */
    Optional<JobResultEntry> getResult(String jobId) throws IOException;

    /**
     * The entries not yet marked clean, sorted by job id: the jobs whose cleanup a new leader must
     * finish. Unreadable entries are included with state {@link JobOutcome#UNKNOWN}.
     */
    List<JobResultEntry> getDirtyResults() throws IOException;

    /**
     * How many entries are dirty and how many clean now, from the entries' names alone (no entry is
     * read): what the metrics show. An entry marked clean whose dirty file is still there counts
     * as clean.
     */
    EntryCounts countEntries() throws IOException;

    /** Entries of the store by where their cleanup stands. */
    record EntryCounts(long dirty, long clean) {}

    /**
     * Deletes the clean entries of jobs that ended longer ago than the store's time-to-live,
     * measured with the store's clock against {@link JobResultEntry#endedAtMs()}. Does nothing if
     * the store has no time-to-live.
     *
     * @return the ids of the jobs whose entries were deleted, so that a caller that caches
     *     results forgets exactly these (memory and store forget together)
     */
    List<String> expireCleanResults() throws IOException;
}

/**
 * The job manager's durable stores for high availability, after Flink's FLIP-194.
 *
 * <pre>
 *   submit --> JobGraphStore.put(job)
 *                 |
 *   job ends --> JobResultStore.createDirtyResult(result)     the job never runs again
 *                 |
 *   cleanup  --> JobGraphStore.remove(jobId), checkpoints, ...  each retried per CleanupRetryPolicy
 *                 |
 *   done     --> JobResultStore.markResultAsClean(jobId)
 *
 *   new leader: recover JobGraphStore.jobIds() that have no job result entry;
 *               finish the cleanup of every JobResultStore.getDirtyResults() entry
 * </pre>
 *
 * <p>{@link io.duraflow.jobstore.JobStores} builds the stores from the configuration
 * ({@code high-availability.*}, {@code job-result-store.*}); the file-based stores write one
 * versioned, CRC32C-checksummed JSON document per job and never treat an unreadable file as
 * absent. No Java serialization is used for durable data.
 */
package io.duraflow.jobstore;

package io.duraflow.jobmanager.dispatcher;

import io.duraflow.config.Configuration;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.SubmittedJob;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable resources a terminated job owns, deleted in this order by one attempt of its
 * cleanup ({@link JobCleanup}); the TaskManagers' partitions are released alongside ({@link
 * PartitionRelease}):
 * <ol>
 *   <li>its checkpoints, per the retention rules ({@link CheckpointRetentionStep}); first, as
 *       they read the job's configuration from its job graph;</li>
 *   <li>its job graph;</li>
 *   <li>its job directory (event log, checkpoint pointers);</li>
 *   <li>its checkpoint id counter ({@code /jobs/<jobId>} in ZooKeeper with high availability).</li>
 * </ol>
 * Each step is idempotent (deleting what is gone does nothing), so a failed attempt is simply run
 * again, by this leader or the next. Only a job with a stored result gets here: a job that is
 * recovered has none, and keeps its counter and everything else.
 *
 * <p>Blocking I/O: runs on the dispatcher's I/O executor.
 */
final class JobResourceDeletion {
    private static final Logger LOG = LoggerFactory.getLogger(JobResourceDeletion.class);

    private final Configuration clusterConfig;
    private final Dispatcher.Services services;

    JobResourceDeletion(Configuration clusterConfig, Dispatcher.Services services) {
        this.clusterConfig = clusterConfig;
        this.services = services;
    }

    /** Runs every step; the first that fails ends the attempt with its error. */
    void deleteAll(String jobId) throws Exception {
        deleteCheckpoints(jobId);
        services.jobGraphs().remove(jobId);
        services.jobDirectories().fileSystem().deleteRecursively(services.jobDirectories().jobDirectory(jobId));
        services.checkpointIdCounters().apply(jobId).discard();
    }

    /**
     * The retention step; nothing to do once the job graph is gone (an earlier attempt got past
     * this step) or unreadable (the job failed, which keeps them).
     */
    private void deleteCheckpoints(String jobId) throws IOException {
        Optional<SubmittedJob> job;
        try {
            job = services.jobGraphs().get(jobId);
        } catch (IOException e) {
            LOG.warn("Job {}: not deleting its checkpoints: its job graph cannot be read ({})", jobId, e.getMessage());
            return;
        }
        Optional<JobResultEntry> result = services.results().getResult(jobId);
        if (job.isPresent() && result.isPresent()) {
            CheckpointRetentionStep.run(clusterConfig, job.get().config(), jobId, result.get().state(),
                    services.jobDirectories().fileSystem(), services.jobDirectories().jobDirectory(jobId));
        }
    }
}

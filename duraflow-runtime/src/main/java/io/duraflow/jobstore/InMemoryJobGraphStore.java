package io.duraflow.jobstore;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A {@link JobGraphStore} in memory, for a job manager without high availability. Thread-safe. */
public final class InMemoryJobGraphStore implements JobGraphStore {
    private final ConcurrentSkipListMap<String, SubmittedJob> jobs = new ConcurrentSkipListMap<>();

    @Override
    public void put(SubmittedJob job) {
        jobs.put(job.jobId(), job);
    }

    @Override
    public Optional<SubmittedJob> get(String jobId) {
        return Optional.ofNullable(jobs.get(JobIds.requireValid(jobId)));
    }

    @Override
    public void remove(String jobId) {
        jobs.remove(JobIds.requireValid(jobId));
    }

    @Override
    public List<String> jobIds() {
        return List.copyOf(jobs.keySet());
    }
}

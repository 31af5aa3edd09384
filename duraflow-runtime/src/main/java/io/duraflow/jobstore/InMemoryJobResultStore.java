package io.duraflow.jobstore;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link JobResultStore} in memory, for a job manager without high availability: entries live
 * as long as the process. Thread-safe; every method holds the instance's lock.
 */
public final class InMemoryJobResultStore implements JobResultStore {
    private record Stored(JobResultEntry entry, boolean clean) {
    }

    private final boolean deleteOnCommit;
    /** Null: clean entries are kept until the process ends. */
    private final Duration cleanTtl;
    private final Clock clock;
    /** By job id, sorted so that {@link #getDirtyResults()} comes out in job id order. */
    private final Map<String, Stored> entries = new TreeMap<>();

    /** A store that keeps clean entries until the process ends. */
    public InMemoryJobResultStore() {
        this(false, null, Clock.systemUTC());
    }

    /**
     * @param deleteOnCommit whether marking an entry clean deletes it instead of keeping it readable
     * @param cleanTtlOrNull how long after its job ended a clean entry is kept by
     *     {@link #expireCleanResults()}, or null to keep it
     * @param clock compared with entries' {@code endedAtMs} when expiring
     */
    public InMemoryJobResultStore(boolean deleteOnCommit, Duration cleanTtlOrNull, Clock clock) {
        if (cleanTtlOrNull != null && (cleanTtlOrNull.isZero() || cleanTtlOrNull.isNegative())) {
            throw new IllegalArgumentException("clean result TTL must be positive: " + cleanTtlOrNull);
        }
        this.deleteOnCommit = deleteOnCommit;
        this.cleanTtl = cleanTtlOrNull;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized void createDirtyResult(JobResultEntry entry) {
        Stored existing = entries.get(entry.jobId());
        if (existing != null) {
            throw new JobResultEntryExistsException(entry.jobId(), existing.clean());
        }
        entries.put(entry.jobId(), new Stored(entry, false));
    }

    @Override
    public synchronized void markResultAsClean(String jobId) {
        Stored existing = entries.get(JobIds.requireValid(jobId));
        if (existing == null) {
            throw new NoSuchElementException("job " + jobId + " has no result in the in-memory job result store");
        }
        if (deleteOnCommit) {
            entries.remove(jobId);
        } else if (!existing.clean()) {
            entries.put(jobId, new Stored(existing.entry(), true));
        }
    }

    @Override
    public synchronized boolean hasJobResultEntry(String jobId) {
        return entries.containsKey(JobIds.requireValid(jobId));
    }

    @Override
    public synchronized boolean hasDirtyJobResultEntry(String jobId) {
        Stored stored = entries.get(JobIds.requireValid(jobId));
        return stored != null && !stored.clean();
    }

    @Override
    public synchronized boolean hasCleanJobResultEntry(String jobId) {
        Stored stored = entries.get(JobIds.requireValid(jobId));
        return stored != null && stored.clean();
    }

    @Override
    public synchronized Optional<JobResultEntry> getResult(String jobId) {
        return Optional.ofNullable(entries.get(JobIds.requireValid(jobId))).map(Stored::entry);
    }

    @Override
    public synchronized List<JobResultEntry> getDirtyResults() {
        List<JobResultEntry> dirty = new ArrayList<>();
        entries.values().stream().filter(s -> !s.clean()).forEach(s -> dirty.add(s.entry()));
        return dirty;
    }

    @Override
    public synchronized EntryCounts countEntries() {
        long clean = entries.values().stream().filter(Stored::clean).count();
        return new EntryCounts(entries.size() - clean, clean);
    }

    @Override
    public synchronized List<String> expireCleanResults() {
        if (cleanTtl == null) {
            return List.of();
        }
        long nowMs = clock.millis();
        List<String> expired = new ArrayList<>();
        entries.values().removeIf(s -> {
            boolean old = s.clean() && nowMs - s.entry().endedAtMs() > cleanTtl.toMillis();
            if (old) {
                expired.add(s.entry().jobId());
            }
            return old;
        });
        return expired;
    }
}

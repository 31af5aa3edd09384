package io.duraflow.jobstore;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobResultStore} with one JSON file per job in a directory on any {@link FileSystem}
 * ({@code <jobId>.dirty.json}, {@code <jobId>.clean.json}); marking clean needs no atomic rename
 * and an unreadable file is never ignored. Thread-safe; operations of one instance are serialized.
 * File format and rules: see docs/design/job-result-store.md#filesystemjobresultstore.
 */
public final class FileSystemJobResultStore implements JobResultStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileSystemJobResultStore.class);

    static final String DIRTY_SUFFIX = ".dirty.json";
    static final String CLEAN_SUFFIX = ".clean.json";
    private static final Pattern FILE_NAME = Pattern.compile("(" + JobIds.REGEX + ")(\\.dirty\\.json|\\.clean\\.json)");

    private final FsPath directory;
    private final FileSystem fileSystem;
    private final boolean deleteOnCommit;
    /** Null: clean entries are kept until deleted by hand. */
    private final Duration cleanTtl;
    private final Clock clock;
    private final Object lock = new Object();

    /** A read entry; {@code corrupt} if it came from a file that could not be read. */
    private record Loaded(JobResultEntry entry, boolean corrupt) {
    }

    /**
     * @param fileSystem holds the directory
     * @param directory where the files are; created when the first entry is written
     * @param deleteOnCommit whether marking an entry clean deletes it instead of keeping it readable
     * @param cleanTtlOrNull how long after its job ended a clean entry is kept by
     *     {@link #expireCleanResults()}, or null to keep it forever
     * @param clock compared with entries' {@code endedAtMs} when expiring
     */
    public FileSystemJobResultStore(FileSystem fileSystem, FsPath directory, boolean deleteOnCommit,
            Duration cleanTtlOrNull, Clock clock) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.deleteOnCommit = deleteOnCommit;
        if (cleanTtlOrNull != null && (cleanTtlOrNull.isZero() || cleanTtlOrNull.isNegative())) {
            throw new IllegalArgumentException("clean result TTL must be positive: " + cleanTtlOrNull);
        }
        this.cleanTtl = cleanTtlOrNull;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public FsPath directory() {
        return directory;
    }

    @Override
    public void createDirtyResult(JobResultEntry entry) throws IOException {
        String jobId = entry.jobId();
        byte[] bytes = StoreFileFormat.JOB_RESULT.encode(JobResultJson.toJson(entry));
        synchronized (lock) {
            if (fileSystem.exists(clean(jobId))) {
                throw new JobResultEntryExistsException(jobId, true);
            }
            try {
                fileSystem.writeFile(dirty(jobId), bytes, WriteMode.EXCLUSIVE);
            } catch (FileAlreadyExistsException e) {
                throw new JobResultEntryExistsException(jobId, fileSystem.exists(clean(jobId)));
            }
            // Another process may have committed an earlier dirty entry between our check and the
            // create; our dirty file would then be a stale one next to a clean file.
            if (fileSystem.exists(clean(jobId))) {
                fileSystem.delete(dirty(jobId));
                throw new JobResultEntryExistsException(jobId, true);
            }
        }
        LOG.debug("Stored dirty result of job {} ({}) in {}", jobId, entry.state(), directory);
    }

    @Override
    public void markResultAsClean(String jobId) throws IOException {
        JobIds.requireValid(jobId);
        synchronized (lock) {
            if (fileSystem.exists(clean(jobId))) {
                deleteStaleDirty(jobId);
                return;
            }
            Optional<byte[]> dirtyBytes = fileSystem.readFileIfExists(dirty(jobId));
            if (dirtyBytes.isEmpty()) {
                throw new NoSuchElementException("job " + jobId + " has no result in " + directory);
            }
            if (!deleteOnCommit) {
                // The same bytes, so a corrupt dirty file stays visibly corrupt rather than being rewritten.
                StoreFiles.writeViaTemp(fileSystem, clean(jobId), dirtyBytes.get(), false);
            }
            fileSystem.delete(dirty(jobId));
        }
        LOG.debug("Marked result of job {} as clean in {}", jobId, directory);
    }

    @Override
    public boolean hasJobResultEntry(String jobId) throws IOException {
        JobIds.requireValid(jobId);
        synchronized (lock) {
            return fileSystem.exists(clean(jobId)) || fileSystem.exists(dirty(jobId));
        }
    }

    @Override
    public boolean hasDirtyJobResultEntry(String jobId) throws IOException {
        JobIds.requireValid(jobId);
        synchronized (lock) {
            return !fileSystem.exists(clean(jobId)) && fileSystem.exists(dirty(jobId));
        }
    }

    @Override
    public boolean hasCleanJobResultEntry(String jobId) throws IOException {
        JobIds.requireValid(jobId);
        synchronized (lock) {
            return fileSystem.exists(clean(jobId));
        }
    }

    @Override
    public Optional<JobResultEntry> getResult(String jobId) throws IOException {
        JobIds.requireValid(jobId);
        synchronized (lock) {
            Optional<Loaded> clean = load(jobId, clean(jobId));
            if (clean.isPresent() && !clean.get().corrupt()) {
                return Optional.of(clean.get().entry());
            }
            Optional<Loaded> dirty = load(jobId, dirty(jobId));
            if (clean.isPresent() && (dirty.isEmpty() || dirty.get().corrupt())) {
                return Optional.of(clean.get().entry());
            }
            return dirty.map(Loaded::entry);
        }
    }

    @Override
    public List<JobResultEntry> getDirtyResults() throws IOException {
        List<JobResultEntry> results = new ArrayList<>();
        synchronized (lock) {
            for (String jobId : jobIdsWithSuffix(DIRTY_SUFFIX)) {
                if (fileSystem.exists(clean(jobId))) {
                    deleteStaleDirty(jobId);
                } else {
                    load(jobId, dirty(jobId)).ifPresent(loaded -> results.add(loaded.entry()));
                }
            }
        }
        results.sort(Comparator.comparing(JobResultEntry::jobId));
        return results;
    }

    @Override
    public EntryCounts countEntries() throws IOException {
        java.util.Set<String> dirty = new java.util.HashSet<>();
        java.util.Set<String> clean = new java.util.HashSet<>();
        for (String name : StoreFiles.fileNames(fileSystem, directory)) {
            Matcher m = FILE_NAME.matcher(name);
            if (m.matches()) {
                (m.group(2).equals(CLEAN_SUFFIX) ? clean : dirty).add(m.group(1));
            }
        }
        dirty.removeAll(clean);
        return new EntryCounts(dirty.size(), clean.size());
    }

    @Override
    public List<String> expireCleanResults() throws IOException {
        if (cleanTtl == null) {
            return List.of();
        }
        long nowMs = clock.millis();
        List<String> expired = new ArrayList<>();
        synchronized (lock) {
            for (String jobId : jobIdsWithSuffix(CLEAN_SUFFIX)) {
                Optional<Loaded> loaded = load(jobId, clean(jobId));
                if (loaded.isPresent() && !loaded.get().corrupt()
                        && nowMs - loaded.get().entry().endedAtMs() > cleanTtl.toMillis()) {
                    // Dirty first: a lone dirty file would make a new leader redo the cleanup.
                    fileSystem.delete(dirty(jobId));
                    fileSystem.delete(clean(jobId));
                    expired.add(jobId);
                }
            }
        }
        if (!expired.isEmpty()) {
            LOG.info("Expired {} clean job results older than {} in {}", expired.size(), cleanTtl, directory);
        }
        return expired;
    }

    /** Deletes the dirty file next to a clean one, unless the clean file is unreadable and the dirty one is not. */
    private void deleteStaleDirty(String jobId) throws IOException {
        FsPath dirty = dirty(jobId);
        if (!fileSystem.exists(dirty)) {
            return;
        }
        Optional<Loaded> clean = load(jobId, clean(jobId));
        if (clean.isPresent() && clean.get().corrupt()) {
            LOG.warn("Keeping {} because the clean result of job {} next to it cannot be read", dirty, jobId);
            return;
        }
        if (fileSystem.delete(dirty)) {
            LOG.info("Deleted stale {}: job {} is marked clean", dirty, jobId);
        }
    }

    /** Reads one file; a corrupt one becomes an UNKNOWN entry and a WARN. Empty if the file does not exist. */
    private Optional<Loaded> load(String jobId, FsPath file) throws IOException {
        Optional<byte[]> bytes = fileSystem.readFileIfExists(file);
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            JobResultEntry entry = StoreFileFormat.JOB_RESULT.decode(file, bytes.get(), JobResultJson::fromJson);
            if (!entry.jobId().equals(jobId)) {
                throw StoreFileFormat.JOB_RESULT.corrupt(file, "it holds the result of job " + entry.jobId());
            }
            return Optional.of(new Loaded(entry, false));
        } catch (CorruptStoreFileException e) {
            LOG.warn("Cannot read the result of job {}, so it counts as ended with an unknown result: {}",
                    jobId, e.getMessage());
            return Optional.of(new Loaded(JobResultEntry.unknown(jobId, e.getMessage()), true));
        }
    }

    private List<String> jobIdsWithSuffix(String suffix) throws IOException {
        List<String> jobIds = new ArrayList<>();
        for (String name : StoreFiles.fileNames(fileSystem, directory)) {
            Matcher m = FILE_NAME.matcher(name);
            if (m.matches() && m.group(2).equals(suffix)) {
                jobIds.add(m.group(1));
            }
        }
        return jobIds;
    }

    private FsPath dirty(String jobId) {
        return directory.resolve(jobId + DIRTY_SUFFIX);
    }

    private FsPath clean(String jobId) {
        return directory.resolve(jobId + CLEAN_SUFFIX);
    }

    @Override
    public String toString() {
        return "FileSystemJobResultStore[" + directory + (deleteOnCommit ? ", delete-on-commit" : "")
                + (cleanTtl == null ? "" : ", ttl " + cleanTtl) + "]";
    }
}

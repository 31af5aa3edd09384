package io.duraflow.jobstore;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link JobGraphStore} with one file per job, {@code <directory>/<jobId>.json}, in the envelope
 * of {@link StoreFileFormat}, replaced through a temp file and a rename. Thread-safe: operations of
 * one instance are serialized. See docs/design/job-result-store.md#filesystemjobgraphstore.
 */
public final class FileSystemJobGraphStore implements JobGraphStore {
    private static final String SUFFIX = ".json";
    private static final Pattern FILE_NAME = Pattern.compile("(" + JobIds.REGEX + ")\\.json");

    private final FsPath directory;
    private final FileSystem fileSystem;
    private final Object lock = new Object();

    /** A store in {@code directory} of {@code fileSystem}; the directory is created with the first job. */
    public FileSystemJobGraphStore(FileSystem fileSystem, FsPath directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
    }

    public FsPath directory() {
        return directory;
    }

    @Override
    public void put(SubmittedJob job) throws IOException {
        byte[] bytes = StoreFileFormat.JOB_GRAPH.encode(SubmittedJobJson.toJson(job));
        synchronized (lock) {
            StoreFiles.writeViaTemp(fileSystem, file(job.jobId()), bytes, true);
        }
    }

    @Override
    public Optional<SubmittedJob> get(String jobId) throws IOException {
        FsPath file = file(JobIds.requireValid(jobId));
        Optional<byte[]> bytes;
        synchronized (lock) {
            bytes = fileSystem.readFileIfExists(file);
        }
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        SubmittedJob job = StoreFileFormat.JOB_GRAPH.decode(file, bytes.get(), SubmittedJobJson::fromJson);
        if (!job.jobId().equals(jobId)) {
            throw StoreFileFormat.JOB_GRAPH.corrupt(file, "it holds job " + job.jobId());
        }
        return Optional.of(job);
    }

    @Override
    public void remove(String jobId) throws IOException {
        FsPath file = file(JobIds.requireValid(jobId));
        synchronized (lock) {
            fileSystem.delete(file);
        }
    }

    @Override
    public List<String> jobIds() throws IOException {
        List<String> jobIds = new ArrayList<>();
        List<String> names;
        synchronized (lock) {
            names = StoreFiles.fileNames(fileSystem, directory);
        }
        for (String name : names) {
            Matcher m = FILE_NAME.matcher(name);
            if (m.matches()) {
                jobIds.add(m.group(1));
            }
        }
        jobIds.sort(null); // file names sort differently: "a.2.json" < "a.json"
        return jobIds;
    }

    private FsPath file(String jobId) {
        return directory.resolve(jobId + SUFFIX);
    }

    @Override
    public String toString() {
        return "FileSystemJobGraphStore[" + directory + "]";
    }
}

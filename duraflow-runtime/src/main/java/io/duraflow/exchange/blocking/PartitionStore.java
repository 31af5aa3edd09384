package io.duraflow.exchange.blocking;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The result partitions this TaskManager holds on local disk, under
 * {@code <data-dir>/partitions/<jobId>/<partitionId>.data|.index}. A partition is served only
 * after its producer finished and published it.
 */
public final class PartitionStore {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStore.class);

    /** A published partition's files. */
    public record StoredPartition(String jobId, String partitionId, Path dataFile, Path indexFile) {}

    /** Deletes one file or empty directory if it exists; tests make it fail (as root, every file can be deleted). */
    interface FileDeleter {
        void delete(Path path) throws IOException;
    }

    private final Path root;
    private final FileDeleter deleter;
    private final Map<String, StoredPartition> published = new ConcurrentHashMap<>();
    /** Published partitions reported to the current JobManager as kept from an earlier one. */
    private final java.util.Set<String> kept = ConcurrentHashMap.newKeySet();

    public PartitionStore(Path dataDirectory) throws IOException {
        this(dataDirectory, Files::deleteIfExists);
    }

    PartitionStore(Path dataDirectory, FileDeleter deleter) throws IOException {
        this.root = dataDirectory.resolve("partitions");
        this.deleter = deleter;
        Files.createDirectories(root);
    }

    public PartitionFileWriter create(String jobId, String partitionId, int subpartitions, int writeBufferBytes)
            throws IOException {
        // A new attempt may reuse the id of a partition kept from an earlier JobManager: the old
        // one stops being served and stops counting as kept before its files are overwritten.
        published.remove(partitionId);
        kept.remove(partitionId);
        Path jobDirectory = root.resolve(jobId);
        Files.createDirectories(jobDirectory);
        return new PartitionFileWriter(dataFile(jobId, partitionId), indexFile(jobId, partitionId), subpartitions,
                writeBufferBytes);
    }

    public void publish(String jobId, String partitionId) {
        published.put(partitionId, new StoredPartition(jobId, partitionId, dataFile(jobId, partitionId),
                indexFile(jobId, partitionId)));
    }

    public StoredPartition lookup(String partitionId) {
        return published.get(partitionId);
    }

    /** Every published partition. */
    public java.util.List<StoredPartition> published() {
        return java.util.List.copyOf(published.values());
    }

    /**
     * Every published partition, which from now on counts as kept from an earlier JobManager:
     * what a TaskManager reports when it registers with a new leader.
     */
    public java.util.List<StoredPartition> keepPublished() {
        kept.clear();
        kept.addAll(published.keySet());
        return published();
    }

    /**
     * Releases kept partitions of a job: those named (all of the job's if none are), but only
     * while they are still the kept ones; a partition written since stays.
     */
    public void releaseKept(String jobId, java.util.Collection<String> partitionIds) {
        java.util.Collection<String> candidates = partitionIds.isEmpty() ? java.util.List.copyOf(kept) : partitionIds;
        for (String partitionId : candidates) {
            StoredPartition partition = published.get(partitionId);
            if (partition != null && partition.jobId().equals(jobId) && kept.remove(partitionId)) {
                release(jobId, partitionId);
            }
        }
    }

    public int size() {
        return published.size();
    }

    public void release(String jobId, String partitionId) {
        published.remove(partitionId);
        kept.remove(partitionId);
        deleteQuietly(dataFile(jobId, partitionId));
        deleteQuietly(indexFile(jobId, partitionId));
    }

    /**
     * Deletes every partition of a job: its directory with everything in it. Nothing of the job is
     * served any more even if this fails; deleting again is safe.
     *
     * @throws IOException naming the file that could not be deleted (the JobManager asks again)
     */
    public void releaseJob(String jobId) throws IOException {
        published.values().removeIf(p -> p.jobId().equals(jobId));
        kept.removeIf(id -> !published.containsKey(id));
        Path directory = root.resolve(jobId);
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                deleter.delete(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Deletes every partition: the JobManager that knew them is gone. */
    public void releaseAll() {
        published.clear();
        kept.clear();
        try (Stream<Path> jobs = Files.list(root)) {
            jobs.forEach(PartitionStore::deleteTree);
        } catch (IOException e) {
            LOG.warn("Could not list {} to release partitions", root, e);
        }
    }

    private Path dataFile(String jobId, String partitionId) {
        return root.resolve(jobId).resolve(partitionId + ".data");
    }

    private Path indexFile(String jobId, String partitionId) {
        return root.resolve(jobId).resolve(partitionId + ".index");
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Could not delete {}", file, e);
        }
    }

    /** Regular files under {@code directory}; 0 if it does not exist. */
    public static int countFiles(Path directory) {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return (int) files.filter(Files::isRegularFile).count();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    public static void deleteTree(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(PartitionStore::deleteQuietly);
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}", directory, e);
        }
    }
}

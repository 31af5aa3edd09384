package io.duraflow.checkpoint;

import com.google.protobuf.InvalidProtocolBufferException;
import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.rpc.proto.CompletedCheckpointPointer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completed-checkpoint store in the high-availability storage: one small pointer file per
 * retained checkpoint, naming its metadata; fenced like the job stores. Layout, fencing and the
 * order of {@link #add}: see
 * docs/design/checkpoint-coordination.md#filesystemcompletedcheckpointstore.
 */
public final class FileSystemCompletedCheckpointStore implements CompletedCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileSystemCompletedCheckpointStore.class);
    static final CheckpointFileFraming POINTER_FRAMING = new CheckpointFileFraming("completed checkpoint pointer",
            "DFCP", 1);
    private static final Pattern POINTER_NAME = Pattern.compile("checkpoint-([0-9]{19})");

    /** The HA storage's: the pointers. */
    private final FileSystem fileSystem;
    /** {@code execution.checkpointing.dir}'s: the metadata the pointers name. */
    private final FileSystem metadataFileSystem;
    private final FsPath directory;
    private final String jobId;
    private final int numRetained;
    private final BooleanSupplier stillLeads;
    private final List<CompletedCheckpoint> retained = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final FailureWindowRecords failureWindow;

    /**
     * @param fileSystem the file system of the HA storage, where the pointers are
     * @param metadataFileSystem the file system of {@code execution.checkpointing.dir}, where the
     *     checkpoints' {@code _metadata} files are
     * @param directory the pointers' directory, see {@link #pointerDirectory}
     * @param stillLeads asks, with a round trip, whether this JobManager still leads
     */
    public FileSystemCompletedCheckpointStore(FileSystem fileSystem, FileSystem metadataFileSystem, FsPath directory,
            String jobId, int numRetained, BooleanSupplier stillLeads) {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.metadataFileSystem = Objects.requireNonNull(metadataFileSystem, "metadataFileSystem");
        this.directory = Objects.requireNonNull(directory, "directory");
        this.jobId = Objects.requireNonNull(jobId, "jobId");
        if (numRetained < 1) {
            throw new IllegalArgumentException("retain at least one checkpoint, not " + numRetained);
        }
        this.numRetained = numRetained;
        this.stillLeads = Objects.requireNonNull(stillLeads, "stillLeads");
        this.failureWindow = new FailureWindowRecords(fileSystem, directory, jobId, stillLeads);
    }

    /** Where a job's pointers live inside its HA directory ({@code HighAvailabilityServices.jobDirectory}). */
    public static FsPath pointerDirectory(FsPath jobHaDirectory) {
        return jobHaDirectory.resolve("checkpoints");
    }

    FsPath pointerFile(long checkpointId) {
        return directory.resolve(String.format("checkpoint-%019d", checkpointId));
    }

    @Override
    public synchronized List<CompletedCheckpoint> recover() throws IOException {
        retained.clear();
        warnings.clear();
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            Matcher name = POINTER_NAME.matcher(status.path().name());
            if (!name.matches()) {
                continue;
            }
            long checkpointId = Long.parseLong(name.group(1));
            try {
                retained.add(readPointed(status.path(), checkpointId));
            } catch (IOException e) {
                String warning = "skipping checkpoint " + checkpointId + " of job " + jobId + ": " + e.getMessage()
                        + (retained.isEmpty() ? "" : "; falling back to checkpoint "
                        + retained.get(retained.size() - 1).checkpointId());
                warnings.add(warning);
                LOG.warn(warning);
            }
        }
        // A later checkpoint may be the unreadable one: the fallback message above names only earlier ones.
        if (!warnings.isEmpty() && !retained.isEmpty()) {
            LOG.warn("Job {} restores from checkpoint {} after skipping {} unreadable checkpoint(s)", jobId,
                    retained.get(retained.size() - 1).checkpointId(), warnings.size());
        }
        return List.copyOf(retained);
    }

    private CompletedCheckpoint readPointed(FsPath pointer, long checkpointId) throws IOException {
        byte[] payload = POINTER_FRAMING.unframe(pointer, fileSystem.readFile(pointer));
        CompletedCheckpointPointer data;
        try {
            data = CompletedCheckpointPointer.parseFrom(payload);
        } catch (InvalidProtocolBufferException e) {
            throw POINTER_FRAMING.corrupt(pointer, "unparsable payload: " + e.getMessage());
        }
        if (!data.getJobId().equals(jobId) || data.getCheckpointId() != checkpointId) {
            throw POINTER_FRAMING.corrupt(pointer, "points to checkpoint " + data.getCheckpointId() + " of job "
                    + data.getJobId());
        }
        FsPath metadata;
        try {
            metadata = FsPath.parse(data.getMetadataFile());
        } catch (IllegalArgumentException e) {
            throw POINTER_FRAMING.corrupt(pointer, e.getMessage());
        }
        return CheckpointMetadataFormat.read(metadataFileSystem, metadata, jobId, checkpointId);
    }

    @Override
    public synchronized List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) throws IOException {
        if (!checkpoint.jobId().equals(jobId)) {
            throw new IllegalArgumentException(checkpoint + " added to the store of job " + jobId);
        }
        if (!retained.isEmpty() && checkpoint.checkpointId() <= retained.get(retained.size() - 1).checkpointId()) {
            throw new IllegalArgumentException(checkpoint + " is not newer than the latest retained "
                    + retained.get(retained.size() - 1));
        }
        byte[] pointer = POINTER_FRAMING.frame(CompletedCheckpointPointer.newBuilder()
                .setJobId(jobId)
                .setCheckpointId(checkpoint.checkpointId())
                .setMetadataFile(checkpoint.metadataFile().toUri().toString())
                .setTimestampMs(checkpoint.timestampMs())
                .build()
                .toByteArray());
        if (!stillLeads.getAsBoolean()) {
            throw new NotLeaderException("pointer to checkpoint " + checkpoint.checkpointId() + " of job " + jobId);
        }
        fileSystem.writeFile(pointerFile(checkpoint.checkpointId()), pointer, WriteMode.EXCLUSIVE);
        retained.add(checkpoint);
        List<CompletedCheckpoint> subsumed = new ArrayList<>();
        while (retained.size() > numRetained) {
            subsumed.add(retained.remove(0));
        }
        return subsumed;
    }

    @Override
    public synchronized void removeSubsumed(List<CompletedCheckpoint> subsumed) {
        subsumed.forEach(checkpoint -> removePointer(checkpoint.checkpointId()));
    }

    /**
     * Best effort: a pointer left behind (lost leadership, I/O error) is subsumed again after the
     * next recovery, and its checkpoint's data stays until then.
     */
    private void removePointer(long checkpointId) {
        try {
            if (!stillLeads.getAsBoolean()) {
                LOG.info("Not removing the pointer to subsumed checkpoint {} of job {}: no longer the leader",
                        checkpointId, jobId);
                return;
            }
            fileSystem.delete(pointerFile(checkpointId));
        } catch (IOException e) {
            LOG.warn("Cannot remove the pointer to subsumed checkpoint {} of job {}: {}", checkpointId, jobId,
                    e.toString());
        }
    }

    @Override
    public synchronized List<CompletedCheckpoint> retained() {
        return List.copyOf(retained);
    }

    @Override
    public synchronized List<String> recoveryWarnings() {
        return List.copyOf(warnings);
    }

    @Override
    public synchronized long failureWindowStart(long nowMs) throws IOException {
        return failureWindow.startOrRecord(nowMs);
    }

    @Override
    public synchronized void recordFailureWindowRestart(long startMs) throws IOException {
        failureWindow.recordRestart(startMs);
    }

    @Override
    public synchronized void discard() throws IOException {
        if (!stillLeads.getAsBoolean()) {
            throw new NotLeaderException("discarding the checkpoint pointers of job " + jobId);
        }
        fileSystem.deleteRecursively(directory);
        retained.clear();
    }
}

package io.duraflow.checkpoint;

import com.google.protobuf.InvalidProtocolBufferException;
import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.rpc.proto.CheckpointFailureWindow;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a job's window of {@code tolerable-failed-checkpoints-timeout} started, durable next to the
 * completed-checkpoint pointers so that every later leader counts from it; written exclusively, one
 * generation per record. See docs/design/checkpoint-rejection.md#failurewindowrecords.
 */
final class FailureWindowRecords {
    private static final Logger LOG = LoggerFactory.getLogger(FailureWindowRecords.class);
    static final CheckpointFileFraming FRAMING = new CheckpointFileFraming("checkpoint failure window", "DFFW", 1);
    private static final Pattern NAME = Pattern.compile("failure-window-([0-9]{19})");

    private final FileSystem fileSystem;
    private final FsPath directory;
    private final String jobId;
    private final BooleanSupplier stillLeads;

    /** A record read back. */
    record Window(long generation, long startMs) {}

    FailureWindowRecords(FileSystem fileSystem, FsPath directory, String jobId, BooleanSupplier stillLeads) {
        this.fileSystem = fileSystem;
        this.directory = directory;
        this.jobId = jobId;
        this.stillLeads = stillLeads;
    }

    FsPath file(long generation) {
        return directory.resolve(String.format("failure-window-%019d", generation));
    }

    /**
     * The latest window; if none was recorded (the job's first start), records one starting at
     * {@code nowMs}. A failed write (say, this JobManager no longer leads) is logged, not thrown: the
     * window starts at {@code nowMs} here, and the next leader records its own start.
     */
    long startOrRecord(long nowMs) throws IOException {
        Window latest = latest();
        if (latest != null) {
            return latest.startMs();
        }
        try {
            write(0, nowMs);
            return nowMs;
        } catch (FileAlreadyExistsException e) {
            // Another leader recorded the start first (or only an unreadable record is there): take what reads.
            Window raced = latest();
            return raced == null ? nowMs : raced.startMs();
        } catch (IOException e) {
            // Not leading any more, or the write failed: the restore goes on; a later leader records its start.
            LOG.warn("Cannot record the start of job {}'s checkpoint failure window: {}", jobId, e.getMessage());
            return nowMs;
        }
    }

    /** A failover by the time limit started a new window at {@code startMs}: records it as the next generation. */
    void recordRestart(long startMs) throws IOException {
        List<Long> generations = generations();
        long next = generations.isEmpty() ? 0 : generations.get(generations.size() - 1) + 1;
        write(next, startMs);
        for (long older : generations) {
            try {
                fileSystem.delete(file(older));
            } catch (IOException e) {
                LOG.warn("Cannot delete the old failure window record {} of job {}: {}", file(older), jobId,
                        e.toString());
            }
        }
    }

    /** The highest generation that reads, or null. */
    Window latest() throws IOException {
        List<Long> generations = generations();
        for (int i = generations.size() - 1; i >= 0; i--) {
            long generation = generations.get(i);
            try {
                return read(generation);
            } catch (IOException e) {
                LOG.warn("Skipping the failure window record of job {}: {}", jobId, e.getMessage());
            }
        }
        return null;
    }

    private Window read(long generation) throws IOException {
        FsPath path = file(generation);
        byte[] payload = FRAMING.unframe(path, fileSystem.readFile(path));
        CheckpointFailureWindow data;
        try {
            data = CheckpointFailureWindow.parseFrom(payload);
        } catch (InvalidProtocolBufferException e) {
            throw FRAMING.corrupt(path, "unparsable payload: " + e.getMessage());
        }
        if (!data.getJobId().equals(jobId) || data.getGeneration() != generation) {
            throw FRAMING.corrupt(path, "records generation " + data.getGeneration() + " of job " + data.getJobId());
        }
        return new Window(generation, data.getStartMs());
    }

    private void write(long generation, long startMs) throws IOException {
        byte[] bytes = FRAMING.frame(CheckpointFailureWindow.newBuilder().setJobId(jobId).setGeneration(generation)
                .setStartMs(startMs).build().toByteArray());
        if (!stillLeads.getAsBoolean()) {
            throw new CompletedCheckpointStore.NotLeaderException("failure window record of job " + jobId);
        }
        fileSystem.writeFile(file(generation), bytes, WriteMode.EXCLUSIVE);
    }

    private List<Long> generations() throws IOException {
        List<Long> generations = new ArrayList<>();
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            Matcher name = NAME.matcher(status.path().name());
            if (name.matches()) {
                generations.add(Long.parseLong(name.group(1)));
            }
        }
        generations.sort(null);
        return generations;
    }
}

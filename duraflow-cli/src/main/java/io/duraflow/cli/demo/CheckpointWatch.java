package io.duraflow.cli.demo;

import io.duraflow.api.connectors.StrideSplit;
import io.duraflow.api.types.DataReader;
import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.format.OperatorSnapshotFormat;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The completed checkpoints of one job, seen in its checkpoint directory
 * ({@code <execution.checkpointing.dir>/<job id>/chk-<n>/_metadata}) while it runs, for the
 * streaming-failover demo. A checkpoint's {@code _metadata} exists only once it completed and is
 * deleted when a later one subsumes it (about a checkpoint interval later), so {@link #poll}
 * must run more often than checkpoints complete; the JobManagers' logs give the count that does
 * not depend on polling ({@link #completedInLogs}).
 *
 * <p>For each checkpoint it keeps how many records the job's sources had read, from the positions
 * of the splits in the readers' state ({@link SourcePosition}): by default of {@link StrideSplit}
 * sources (the {@code DataGeneratorSource}).
 */
public final class CheckpointWatch {
    /** A completed checkpoint: its times (epoch ms, JobManager clock) and the sources' position in it. */
    record Seen(long id, long triggeredMs, long completedMs, long sourceRecordsRead) {
    }

    /** How many records a job's sources had read when a checkpoint was taken, from their splits in it. */
    interface SourcePosition {
        long recordsRead(CompletedCheckpoint checkpoint) throws IOException;
    }

    /** The source reader operator's list state (StreamOperators.SPLITS_STATE, part of the checkpoint format). */
    static final String SPLITS_STATE = "source-splits";

    private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-(\\d+)");

    private final Path jobDirectory;
    private final String jobId;
    private final SourcePosition position;
    private final TreeMap<Long, Seen> seen = new TreeMap<>();

    /**
     * @param checkpointDirectory execution.checkpointing.dir
     * @param records how many records the sources generate in all (the job's {@code records})
     */
    CheckpointWatch(Path checkpointDirectory, String jobId, long records) {
        this(checkpointDirectory, jobId, checkpoint -> sourceRecordsRead(checkpoint, records));
    }

    /** @param checkpointDirectory execution.checkpointing.dir */
    CheckpointWatch(Path checkpointDirectory, String jobId, SourcePosition position) {
        this.jobDirectory = checkpointDirectory.resolve(jobId);
        this.jobId = jobId;
        this.position = position;
    }

    /** Reads the metadata of every checkpoint that completed since the last poll. */
    void poll() throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return;
        }
        try (DirectoryStream<Path> directories = Files.newDirectoryStream(jobDirectory, "chk-*")) {
            for (Path directory : directories) {
                Matcher name = CHECKPOINT_DIRECTORY.matcher(directory.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                long id = Long.parseLong(name.group(1));
                Path metadata = directory.resolve("_metadata");
                if (seen.containsKey(id) || !Files.exists(metadata)) {
                    continue;
                }
                CompletedCheckpoint checkpoint;
                try {
                    checkpoint = CheckpointMetadataFormat.read(LocalFileSystem.INSTANCE, FsPath.of(metadata), jobId, id);
                } catch (IOException e) {
                    // Written while we read (it is written in place), or subsumed and deleted: next poll.
                    continue;
                }
                seen.put(id, new Seen(id, checkpoint.timestampMs(), checkpoint.completedMs(),
                        position.recordsRead(checkpoint)));
            }
        } catch (java.nio.file.NoSuchFileException | java.io.UncheckedIOException e) {
            // a checkpoint directory deleted while listed
        }
    }

    /** Every checkpoint seen so far, by id. */
    TreeMap<Long, Seen> seen() {
        return seen;
    }

    /** The newest checkpoint seen, if any. */
    Optional<Seen> latest() {
        return seen.isEmpty() ? Optional.empty() : Optional.of(seen.lastEntry().getValue());
    }

    /** The checkpoints seen that completed at or before {@code epochMs}. */
    List<Seen> completedBy(long epochMs) {
        return seen.values().stream().filter(c -> c.completedMs() <= epochMs).toList();
    }

    /** The first checkpoint seen that was triggered after {@code epochMs}. */
    Optional<Seen> firstTriggeredAfter(long epochMs) {
        return seen.values().stream().filter(c -> c.triggeredMs() > epochMs).findFirst();
    }

    /**
     * How many of the {@code records} the sources had read when the checkpoint was taken: every
     * split of {@code k} (split {@code j} holds the indexes {@code j, j + k, ...} below
     * {@code records}) minus what the readers' splits still had to go. A split no reader holds
     * was read to its end (a reader drops exhausted splits); a checkpoint without source state is
     * one taken after the sources finished.
     */
    public static long sourceRecordsRead(CompletedCheckpoint checkpoint, long records) throws IOException {
        List<StrideSplit> splits = new ArrayList<>();
        for (byte[] split : sourceSplits(checkpoint)) {
            splits.add(StrideSplit.SERIALIZER.fromBytes(split));
        }
        return records - remaining(splits);
    }

    /** The splits in the source readers' state of a checkpoint, serialized by their source's split serializer. */
    static List<byte[]> sourceSplits(CompletedCheckpoint checkpoint) throws IOException {
        List<byte[]> splits = new ArrayList<>();
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState subtask : operator.sortedSubtasks().values()) {
                for (OperatorStateHandle handle : subtask.operatorState()) {
                    if (!handle.lists().containsKey(SPLITS_STATE)) {
                        continue;
                    }
                    var list = OperatorSnapshotFormat.read(handle).get(SPLITS_STATE);
                    for (byte[] element : list.elements()) {
                        DataReader in = new DataReader(element);
                        splits.add(in.readBytes(in.readVarInt()));
                    }
                }
            }
        }
        return splits;
    }

    /** Indexes the splits have still to read. */
    static long remaining(List<StrideSplit> splits) {
        long remaining = 0;
        for (StrideSplit split : splits) {
            if (split.next() < split.end()) {
                remaining += (split.end() - split.next() + split.stride() - 1) / split.stride();
            }
        }
        return remaining;
    }

    /**
     * The ids of the job's checkpoints that some JobManager logged as completed
     * ({@code Completed checkpoint N of job ID ...}), from the logs under {@code logDirectory}.
     */
    public static TreeSet<Long> completedInLogs(Path logDirectory, String jobId) throws IOException {
        return idsInLogs(logDirectory, Pattern.compile("Completed checkpoint (\\d+) of job " + Pattern.quote(jobId) + " "));
    }

    /** The ids of the checkpoints the JobManagers restored the job from ({@code Job ID restores checkpoint N ...}). */
    static TreeSet<Long> restoredInLogs(Path logDirectory, String jobId) throws IOException {
        return idsInLogs(logDirectory, Pattern.compile("Job " + Pattern.quote(jobId) + " restores checkpoint (\\d+) "));
    }

    private static TreeSet<Long> idsInLogs(Path logDirectory, Pattern pattern) throws IOException {
        TreeSet<Long> ids = new TreeSet<>();
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(logDirectory, "jobmanager*.log")) {
            for (Path log : logs) {
                for (String line : Files.readAllLines(log, java.nio.charset.StandardCharsets.UTF_8)) {
                    Matcher matcher = pattern.matcher(line);
                    if (matcher.find()) {
                        ids.add(Long.parseLong(matcher.group(1)));
                    }
                }
            }
        }
        return ids;
    }
}

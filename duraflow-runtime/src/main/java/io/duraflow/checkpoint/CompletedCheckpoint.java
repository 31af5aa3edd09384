package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A checkpoint whose {@code _metadata} is durable: everything a restore needs. What the metadata
 * file holds, plus where it is.
 *
 * @param timestampMs when the checkpoint was triggered
 * @param completedMs when its metadata was written
 * @param operators by operator uid
 * @param metadataFile its {@code _metadata}; the checkpoint's own directory is the parent
 * @param fileMergingDirectories the file-merging directories its tasks named (checkpoint file
 *     merging): none is deleted while a retained or pending checkpoint names it
 */
public record CompletedCheckpoint(String jobId, long checkpointId, long timestampMs, long completedMs,
        int maxParallelism, CheckpointKind kind, Map<String, OperatorCheckpointState> operators, FsPath metadataFile,
        java.util.Set<FsPath> fileMergingDirectories) {
    /** A checkpoint whose tasks named no file-merging directory. */
    public CompletedCheckpoint(String jobId, long checkpointId, long timestampMs, long completedMs,
            int maxParallelism, CheckpointKind kind, Map<String, OperatorCheckpointState> operators,
            FsPath metadataFile) {
        this(jobId, checkpointId, timestampMs, completedMs, maxParallelism, kind, operators, metadataFile,
                java.util.Set.of());
    }

    public CompletedCheckpoint {
        fileMergingDirectories = java.util.Set.copyOf(fileMergingDirectories);
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(metadataFile, "metadataFile");
        if (checkpointId < 1) {
            throw new IllegalArgumentException("checkpoint id " + checkpointId);
        }
        if (maxParallelism < 1) {
            throw new IllegalArgumentException("max parallelism " + maxParallelism);
        }
        operators = Map.copyOf(operators);
        operators.forEach((uid, state) -> {
            if (!uid.equals(state.uid())) {
                throw new IllegalArgumentException("state of operator " + state.uid() + " filed under " + uid);
            }
        });
    }

    /** The directory the checkpoint owns ({@code chk-<n>/}, or the savepoint's directory). */
    public FsPath directory() {
        return metadataFile.parent();
    }

    public TreeMap<String, OperatorCheckpointState> sortedOperators() {
        return new TreeMap<>(operators);
    }

    public long stateSize() {
        return operators.values().stream().mapToLong(OperatorCheckpointState::stateSize).sum();
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + checkpointId + " of job " + jobId + " at "
                + metadataFile;
    }
}

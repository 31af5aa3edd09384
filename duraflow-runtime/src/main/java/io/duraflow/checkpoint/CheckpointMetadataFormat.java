package io.duraflow.checkpoint;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.rpc.proto.CheckpointMetadata;
import io.duraflow.rpc.proto.OperatorCheckpointStateData;
import io.duraflow.state.OperatorSubtaskState;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code _metadata} file of a checkpoint or savepoint, version 2 (version 1 still read): a
 * header and one CRC32C-checked {@code duraflow.rpc.CheckpointMetadata} protobuf, written whole,
 * synced and exclusively. Drawn byte by byte, with the example {@code CheckpointMetadataFormatTest}
 * checks, in docs/design/checkpoint-files.md#checkpointmetadataformat.
 */
public final class CheckpointMetadataFormat {
    public static final int VERSION = 2;
    static final CheckpointFileFraming FRAMING = new CheckpointFileFraming("checkpoint metadata", "DFCM", VERSION, 1);

    private CheckpointMetadataFormat() {
    }

    /**
     * The file's bytes for a checkpoint; {@link CompletedCheckpoint#metadataFile()} is not stored (it
     * is where the file is), and files inside its directory are recorded relative to it.
     */
    public static byte[] encode(CompletedCheckpoint checkpoint) {
        FsPath base = checkpoint.directory();
        CheckpointMetadata.Builder builder = CheckpointMetadata.newBuilder()
                .setJobId(checkpoint.jobId())
                .setCheckpointId(checkpoint.checkpointId())
                .setTimestampMs(checkpoint.timestampMs())
                .setMaxParallelism(checkpoint.maxParallelism())
                .setKind(switch (checkpoint.kind()) {
                    case CHECKPOINT -> io.duraflow.rpc.proto.CheckpointKind.CHECKPOINT_KIND_CHECKPOINT;
                    case SAVEPOINT -> io.duraflow.rpc.proto.CheckpointKind.CHECKPOINT_KIND_SAVEPOINT;
                })
                .setCompletedMs(checkpoint.completedMs());
        for (OperatorCheckpointState operator : checkpoint.sortedOperators().values()) {
            OperatorCheckpointStateData.Builder data = OperatorCheckpointStateData.newBuilder()
                    .setUid(operator.uid())
                    .setParallelism(operator.parallelism());
            operator.coordinatorStateBytes().ifPresent(bytes -> data.setCoordinatorState(ByteString.copyFrom(bytes)));
            operator.sortedSubtasks().forEach((subtask, state) -> data.putSubtasks(subtask,
                    StateHandleCodec.toProto(state, base)));
            builder.addOperators(data);
        }
        checkpoint.fileMergingDirectories().stream().map(FsPath::toString).sorted()
                .forEach(builder::addFileMergingDirectories);
        return FRAMING.frame(builder.build().toByteArray());
    }

    /**
     * The checkpoint in a metadata file's bytes.
     *
     * @param file where the bytes were read from: becomes {@link CompletedCheckpoint#metadataFile()},
     *     names the file in errors, and its directory is what relative file paths resolve against
     */
    public static CompletedCheckpoint decode(FsPath file, byte[] bytes) throws CorruptCheckpointFileException {
        byte[] payload = FRAMING.unframe(file, bytes);
        CheckpointMetadata metadata;
        try {
            metadata = CheckpointMetadata.parseFrom(payload);
        } catch (InvalidProtocolBufferException e) {
            throw FRAMING.corrupt(file, "unparsable payload: " + e.getMessage());
        }
        try {
            CheckpointKind kind = switch (metadata.getKind()) {
                case CHECKPOINT_KIND_CHECKPOINT -> CheckpointKind.CHECKPOINT;
                case CHECKPOINT_KIND_SAVEPOINT -> CheckpointKind.SAVEPOINT;
                default -> throw new IllegalArgumentException("unknown checkpoint kind " + metadata.getKind());
            };
            Map<String, OperatorCheckpointState> operators = new HashMap<>();
            for (OperatorCheckpointStateData data : metadata.getOperatorsList()) {
                Map<Integer, OperatorSubtaskState> subtasks = new HashMap<>();
                data.getSubtasksMap().forEach((subtask, state) -> subtasks.put(subtask,
                        StateHandleCodec.fromProto(state, file.parent())));
                OperatorCheckpointState operator = new OperatorCheckpointState(data.getUid(), data.getParallelism(),
                        data.hasCoordinatorState() ? data.getCoordinatorState().toByteArray() : null, subtasks);
                if (operators.put(operator.uid(), operator) != null) {
                    throw new IllegalArgumentException("operator uid " + operator.uid() + " appears twice");
                }
            }
            java.util.Set<FsPath> fileMergingDirectories = new java.util.HashSet<>();
            for (String directory : metadata.getFileMergingDirectoriesList()) {
                fileMergingDirectories.add(FsPath.parse(directory));
            }
            return new CompletedCheckpoint(metadata.getJobId(), metadata.getCheckpointId(), metadata.getTimestampMs(),
                    metadata.getCompletedMs(), metadata.getMaxParallelism(), kind, operators, file,
                    fileMergingDirectories);
        } catch (IllegalArgumentException e) {
            throw FRAMING.corrupt(file, e.getMessage());
        }
    }

    /** Writes the checkpoint's metadata to {@link CompletedCheckpoint#metadataFile()}: exclusively, synced. */
    public static void write(FileSystem fileSystem, CompletedCheckpoint checkpoint) throws IOException {
        fileSystem.writeFile(checkpoint.metadataFile(), encode(checkpoint), WriteMode.EXCLUSIVE);
    }

    /**
     * Reads a metadata file and checks that it holds checkpoint {@code expectedCheckpointId} of
     * {@code expectedJobId}.
     *
     * @throws java.nio.file.NoSuchFileException if it does not exist
     * @throws CorruptCheckpointFileException naming the file if it cannot be read or holds another checkpoint
     */
    public static CompletedCheckpoint read(FileSystem fileSystem, FsPath file, String expectedJobId,
            long expectedCheckpointId) throws IOException {
        CompletedCheckpoint checkpoint = decode(file, fileSystem.readFile(file));
        if (!checkpoint.jobId().equals(expectedJobId) || checkpoint.checkpointId() != expectedCheckpointId) {
            throw FRAMING.corrupt(file, "holds checkpoint " + checkpoint.checkpointId() + " of job "
                    + checkpoint.jobId() + ", expected checkpoint " + expectedCheckpointId + " of job " + expectedJobId);
        }
        return checkpoint;
    }

    /** Reads a metadata file whatever checkpoint it holds (a savepoint path given by a user). */
    public static CompletedCheckpoint read(FileSystem fileSystem, FsPath file) throws IOException {
        return decode(file, fileSystem.readFile(file));
    }
}

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
 * The {@code _metadata} file of a checkpoint or savepoint, version 2: everything a restore needs
 * (the state handles of every subtask of every operator, by operator uid), in one small file
 * written whole, synced, exclusively, once the last task acknowledged.
 *
 * <p>Version 2 records a state file inside the {@code _metadata}'s own directory by its path
 * relative to that directory ({@code FileSegmentData.relative_file}), every other file by its
 * URI; a reader resolves relative paths against the directory it read the {@code _metadata}
 * from. A savepoint writes all its files into its directory, so the directory can be moved or
 * copied elsewhere and restored from there. Version 1 (every file by its URI) is still read.
 *
 * <p>Layout; all integers big-endian two's complement:
 *
 * <pre>
 *  offset  size  field
 *  ------  ----  ---------------------------------------------------------------------
 *       0     1  magic[0]       'D' (0x44)
 *       1     1  magic[1]       'F' (0x46)
 *       2     1  magic[2]       'C' (0x43)
 *       3     1  magic[3]       'M' (0x4d)
 *       4     4  version        int32, 2 (written); readers read 1 and 2 and reject any other
 *       8     4  payloadLength  int32, n, 0 .. 268,435,456 (256 MiB); the file is exactly 16 + n bytes
 *      12     4  crc32c         int32, CRC32C ({@link java.util.zip.CRC32C}) of the n payload bytes
 *      16     n  payload        one {@code duraflow.rpc.CheckpointMetadata} protobuf message (duraflow.proto):
 *                                 job_id, checkpoint_id, timestamp_ms (trigger), max_parallelism, kind,
 *                                 operators sorted by uid (uid, parallelism, optional coordinator_state,
 *                                 subtasks: index -> state handles), completed_ms,
 *                                 file_merging_directories (URIs, sorted; field 8, absent without
 *                                 file merging, so readers that predate it read such files alike)
 * </pre>
 *
 * Example: checkpoint 1 of job {@code j} triggered at 1000 ms, completed at 1005 ms, max
 * parallelism 128, no operators, is these 32 bytes:
 *
 * <pre>
 *   44 46 43 4d  00 00 00 02                magic "DFCM", version 2
 *   00 00 00 10  6e 32 b4 7b                payload length 16, CRC32C of the payload
 *   0a 01 6a                                job_id (field 1) = "j"
 *   10 01                                   checkpoint_id (field 2) = 1
 *   18 e8 07                                timestamp_ms (field 3) = 1000
 *   20 80 01                                max_parallelism (field 4) = 128
 *   28 01                                   kind (field 5) = CHECKPOINT_KIND_CHECKPOINT
 *   38 ed 07                                completed_ms (field 7) = 1005
 * </pre>
 * ({@code CheckpointMetadataFormatTest} checks exactly these bytes.)
 *
 * <p>Reading a file that is torn (shorter than its length field), padded, of another format or
 * version, with a wrong CRC, an unparsable payload, or handles that make no sense, fails with a
 * {@link CorruptCheckpointFileException} naming the file and the reason; the file's checkpoint
 * id must also match what the caller expected, so a file copied into the wrong directory is not
 * taken for another checkpoint.
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

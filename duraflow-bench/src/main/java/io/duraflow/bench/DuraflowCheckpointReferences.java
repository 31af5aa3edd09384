package io.duraflow.bench;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * Duraflow's {@link CheckpointSpace.MetadataReader}: reads a checkpoint's {@code _metadata}
 * with {@link CheckpointMetadataFormat} (as {@code duraflow checkpoints verify} does) and returns
 * every file segment its operators' keyed and operator state refer to: a plain file is one
 * segment (offset 0, its length), a merged file's segment is its (offset, length) without the
 * trailer. Inlined state refers to no file. A finished task has no subtask state in the checkpoints
 * after it finished.
 */
final class DuraflowCheckpointReferences implements CheckpointSpace.MetadataReader {
    private final FileSystem fileSystem;
    private final FsPath root;

    DuraflowCheckpointReferences(FileSystem fileSystem, FsPath root) {
        this.fileSystem = fileSystem;
        this.root = root;
    }

    @Override
    public CheckpointSpace.References read(String relativePath) throws IOException {
        CompletedCheckpoint checkpoint = CheckpointMetadataFormat.read(fileSystem, root.resolve(relativePath));
        String prefix = root.path().endsWith("/") ? root.path() : root.path() + "/";
        Set<CheckpointSpace.Segment> segments = new HashSet<>();
        int subtaskStates = 0;
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState state : operator.subtasks().values()) {
                if (!state.isEmpty()) {
                    subtaskStates++;
                }
                for (KeyedStateHandle handle : state.keyedState()) {
                    for (StreamStateHandle stream : handle.streams()) {
                        add(stream, prefix, segments);
                    }
                }
                for (OperatorStateHandle handle : state.operatorState()) {
                    add(handle.stream(), prefix, segments);
                }
            }
        }
        return new CheckpointSpace.References(segments, subtaskStates);
    }

    private static void add(StreamStateHandle stream, String prefix, Set<CheckpointSpace.Segment> into) {
        if (stream instanceof FileSegmentHandle segment) {
            String path = segment.file().path();
            into.add(new CheckpointSpace.Segment(path.startsWith(prefix) ? path.substring(prefix.length()) : path,
                    segment.offset(), segment.length()));
        }
    }
}

package io.duraflow.bench.flink;

import io.duraflow.bench.CheckpointFileCensus;
import io.duraflow.bench.CheckpointSpace;
import io.duraflow.bench.CheckpointTree;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filemerging.EmptySegmentFileStateHandle;
import org.apache.flink.runtime.state.filemerging.SegmentFileStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

/**
 * Flink's {@link CheckpointSpace.MetadataReader}: loads a checkpoint's {@code _metadata} with
 * Flink's own loader ({@link Checkpoints#loadCheckpointMetadata}) in Flink's JVM and returns the
 * file ranges its operators' state refers to: a {@link SegmentFileStateHandle} (file merging) is
 * (file, start, size), a {@link FileStateHandle} (a file of its own) is (file, 0, size), through
 * the keyed handles (incremental RocksDB: shared and private files and the meta file; full:
 * key-group file) and operator state (its delegate). State inlined in the metadata ({@link
 * ByteStreamStateHandle}) and empty state ({@link EmptySegmentFileStateHandle}, path {@code empty})
 * refer to no file; anything else (e.g. an unresolved placeholder) is
 * counted in {@link #unresolvedHandles()}. Subtask states counted: not finished, with state.
 */
final class FlinkCheckpointReferences implements CheckpointSpace.MetadataReader {
  private final Path root;
  private final String rootPrefix;
  private final AtomicLong unresolved = new AtomicLong();

  FlinkCheckpointReferences(Path root) {
    this.root = root.toAbsolutePath().normalize();
    this.rootPrefix = this.root.toString() + "/";
  }

  /** Handles the reader could not map to a file, over every checkpoint read so far. */
  long unresolvedHandles() {
    return unresolved.get();
  }

  @Override
  public CheckpointSpace.References read(String relativePath) throws IOException {
    Path file = root.resolve(relativePath);
    CheckpointMetadata metadata;
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      metadata = Checkpoints.loadCheckpointMetadata(in, FlinkCheckpointReferences.class.getClassLoader(),
          file.getParent().toUri().toString());
    }
    Set<CheckpointSpace.Segment> segments = new HashSet<>();
    int subtaskStates = 0;
    for (OperatorState operator : metadata.getOperatorStates()) {
      for (OperatorSubtaskState subtask : operator.getStates()) {
        if (!subtask.isFinished() && subtask.hasState()) {
          subtaskStates++;
        }
        for (KeyedStateHandle keyed : subtask.getManagedKeyedState()) {
          keyed(keyed, segments);
        }
        for (KeyedStateHandle keyed : subtask.getRawKeyedState()) {
          keyed(keyed, segments);
        }
        for (OperatorStateHandle state : subtask.getManagedOperatorState()) {
          stream(state, segments);
        }
        for (OperatorStateHandle state : subtask.getRawOperatorState()) {
          stream(state, segments);
        }
      }
    }
    return new CheckpointSpace.References(segments, subtaskStates);
  }

  private void keyed(KeyedStateHandle handle, Set<CheckpointSpace.Segment> into) {
    if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
      for (HandleAndLocalPath shared : incremental.getSharedState()) {
        stream(shared.getHandle(), into);
      }
      for (HandleAndLocalPath privateFile : incremental.getPrivateState()) {
        stream(privateFile.getHandle(), into);
      }
      stream(incremental.getMetaDataStateHandle(), into);
    } else if (handle instanceof KeyGroupsStateHandle keyGroups) {
      stream(keyGroups.getDelegateStateHandle(), into);
    } else {
      unresolved.incrementAndGet();
    }
  }

  private void stream(StreamStateHandle handle, Set<CheckpointSpace.Segment> into) {
    if (handle == null || handle instanceof ByteStreamStateHandle || handle instanceof EmptySegmentFileStateHandle) {
      return; // inline, or empty state (Flink's placeholder segment, path "empty", no file)
    }
    if (handle instanceof SegmentFileStateHandle segment) {
      into.add(new CheckpointSpace.Segment(relative(segment.getFilePath()), segment.getStartPos(),
          segment.getStateSize()));
    } else if (handle instanceof FileStateHandle plain) {
      into.add(new CheckpointSpace.Segment(relative(plain.getFilePath()), 0, plain.getStateSize()));
    } else if (handle instanceof OperatorStateHandle operator) {
      stream(operator.getDelegateStateHandle(), into);
    } else if (handle instanceof KeyGroupsStateHandle keyGroups) {
      stream(keyGroups.getDelegateStateHandle(), into);
    } else {
      unresolved.incrementAndGet();
    }
  }

  private String relative(org.apache.flink.core.fs.Path path) {
    String local = Path.of(path.toUri().getPath()).normalize().toString();
    return local.startsWith(rootPrefix) ? local.substring(rootPrefix.length()) : local;
  }
}

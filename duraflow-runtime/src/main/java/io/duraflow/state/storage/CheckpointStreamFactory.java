package io.duraflow.state.storage;

import java.io.IOException;

/**
 * Makes the streams that one checkpoint's state is written to. One factory serves one checkpoint
 * of one task; it is handed to every state backend's snapshot. {@link FsCheckpointStreamFactory}
 * writes a file per stream; checkpoint file merging is another implementation of this
 * interface that writes segments of shared physical files, so backends do not change.
 *
 * <p>Thread-safe: the asynchronous parts of several operators' snapshots may create streams at the
 * same time; each stream is used by one thread.
 */
public interface CheckpointStreamFactory {
    CheckpointOutputStream createCheckpointOutputStream(CheckpointedStateScope scope) throws IOException;

    /**
     * Whether this checkpoint may refer to {@code handle}, written by an earlier checkpoint, instead
     * of writing its bytes again (an incremental backend's unchanged files); if so, the handle now
     * counts as used by this checkpoint. Without file merging always true: the JobManager's registry
     * keeps whole files alive while a checkpoint refers to them. With it, false when the segment's
     * file may be gone or was picked to be rewritten (space amplification), and the backend then
     * writes the bytes again.
     */
    default boolean tryReuse(io.duraflow.state.StreamStateHandle handle) {
        return true;
    }

    /**
     * Deletes what {@code handle}, made by a stream of this factory, refers to: the snapshot that
     * made it was abandoned (cancelled, or failed) before an acknowledgement named it. Without file
     * merging a handle owns its whole file, which goes ({@link StreamStateHandles#discard}). With
     * it nothing happens here: the handle is a segment of a physical file that other segments
     * (other subtasks', other checkpoints') may share; the segment dies when its checkpoint is
     * aborted or its run ends, and the file-merging manager deletes the file once no live segment
     * is left in it.
     */
    default void discard(io.duraflow.state.StreamStateHandle handle) throws IOException {
        StreamStateHandles.discard(handle);
    }
}

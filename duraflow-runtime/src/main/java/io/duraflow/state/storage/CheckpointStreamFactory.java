package io.duraflow.state.storage;

import java.io.IOException;

/**
 * Makes the streams that one checkpoint's state is written to. One factory serves one checkpoint
 * of one task; it is handed to every state backend's snapshot. {@link FsCheckpointStreamFactory}
 * writes a file per stream; checkpoint file merging (issue 12) is another implementation of this
 * interface that writes segments of shared physical files, so backends do not change.
 *
 * <p>Thread-safe: the asynchronous parts of several operators' snapshots may create streams at the
 * same time; each stream is used by one thread.
 */
public interface CheckpointStreamFactory {
    CheckpointOutputStream createCheckpointOutputStream(CheckpointedStateScope scope) throws IOException;
}

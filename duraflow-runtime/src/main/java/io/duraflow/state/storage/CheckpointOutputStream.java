package io.duraflow.state.storage;

import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream of checkpointed state that ends in a {@link StreamStateHandle}. Exactly one of {@link
 * #closeAndGetHandle()} and {@link #abort()} decides its fate; {@link #close()} without a handle
 * aborts it, so a try-with-resources block that throws leaves nothing behind. Used by one thread.
 */
public abstract class CheckpointOutputStream extends OutputStream {
    /** Bytes written so far: where the next byte lands in the stream (offsets in handles are these). */
    public abstract long position() throws IOException;

    /**
     * Makes what was written durable and returns the handle to it. Afterwards the bytes belong to
     * the handle: discard them through {@link StreamStateHandles#discard}.
     */
    public abstract StreamStateHandle closeAndGetHandle() throws IOException;

    /** Deletes whatever this stream wrote (best effort; never throws); nothing if a handle was taken. */
    public abstract void abort();

    /** Aborts unless {@link #closeAndGetHandle()} returned. */
    @Override
    public void close() {
        abort();
    }
}

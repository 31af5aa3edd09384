package io.duraflow.state.rocksdb;

import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous part of a RocksDB snapshot. Rules:
 * <ol>
 *   <li>Its {@code cleanup} (delete the local native checkpoint, release the database snapshot)
 *       runs exactly once: when the body ends however it ends, or when the future is cancelled
 *       before the body started.</li>
 *   <li>A body that fails deletes what it uploaded itself (never reused files) before it throws.</li>
 *   <li>A result that arrives after the future was cancelled has no owner: its new files are
 *       deleted at once.</li>
 * </ol>
 */
final class SnapshotFuture extends FutureTask<List<KeyedStateHandle>> {
    private final AtomicBoolean started;
    private final AtomicBoolean cleaned;
    private final Runnable cleanup;

    private SnapshotFuture(Callable<List<KeyedStateHandle>> body, Runnable cleanup, AtomicBoolean started,
            AtomicBoolean cleaned) {
        super(() -> {
            started.set(true);
            try {
                return body.call();
            } finally {
                if (cleaned.compareAndSet(false, true)) {
                    cleanup.run();
                }
            }
        });
        this.started = started;
        this.cleaned = cleaned;
        this.cleanup = cleanup;
    }

    static SnapshotFuture of(Callable<List<KeyedStateHandle>> body, Runnable cleanup) {
        return new SnapshotFuture(body, cleanup, new AtomicBoolean(), new AtomicBoolean());
    }

    /** A future that is already done with no handles (nothing to snapshot). */
    static SnapshotFuture empty() {
        SnapshotFuture future = of(List::of, () -> { });
        future.run();
        return future;
    }

    @Override
    protected void done() {
        if (isCancelled() && !started.get() && cleaned.compareAndSet(false, true)) {
            cleanup.run();
        }
    }

    @Override
    protected void set(List<KeyedStateHandle> handles) {
        super.set(handles);
        if (isCancelled()) {
            handles.forEach(SnapshotFuture::discardNewFiles);
        }
    }

    /** Deletes what {@code handle} uploaded for its own checkpoint: everything but reused shared files. */
    static void discardNewFiles(KeyedStateHandle handle) {
        if (handle instanceof IncrementalKeyedStateHandle incremental) {
            for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
                if (!file.reused()) {
                    discardQuietly(file.handle());
                }
            }
            for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
                discardQuietly(file.handle());
            }
            discardQuietly(incremental.metaData());
        } else {
            handle.streams().forEach(SnapshotFuture::discardQuietly);
        }
    }

    static void discardQuietly(StreamStateHandle handle) {
        try {
            StreamStateHandles.discard(handle);
        } catch (IOException | RuntimeException ignored) {
            // best effort: a file left behind belongs to no checkpoint, and the orphan scan removes it
        }
    }
}

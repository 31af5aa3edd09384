package io.duraflow.state.rocksdb;

import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
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
 *   <li>Files are deleted through the stream factory that wrote them ({@link
 *       CheckpointStreamFactory#discard}): with checkpoint file merging a handle is a segment of a
 *       physical file that live segments of other streams share, and its file-merging manager, not
 *       the handle, decides when the file goes.</li>
 * </ol>
 */
final class SnapshotFuture extends FutureTask<List<KeyedStateHandle>> {
    private final AtomicBoolean started;
    private final AtomicBoolean cleaned;
    private final Runnable cleanup;
    /** Wrote the handles: deletes those of a result nobody owns (rule 4). */
    private final CheckpointStreamFactory streams;

    private SnapshotFuture(Callable<List<KeyedStateHandle>> body, Runnable cleanup, CheckpointStreamFactory streams,
            AtomicBoolean started, AtomicBoolean cleaned) {
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
        this.streams = streams;
    }

    /** @param streams the factory the body writes its streams with */
    static SnapshotFuture of(Callable<List<KeyedStateHandle>> body, Runnable cleanup, CheckpointStreamFactory streams) {
        return new SnapshotFuture(body, cleanup, streams, new AtomicBoolean(), new AtomicBoolean());
    }

    /** A future that is already done with no handles (nothing to snapshot). */
    static SnapshotFuture empty() {
        SnapshotFuture future = of(List::of, () -> { }, scope -> {
            throw new IllegalStateException("an empty snapshot writes no stream");
        });
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
            handles.forEach(handle -> discardNewFiles(streams, handle));
        }
    }

    /** Deletes what {@code handle} uploaded for its own checkpoint: everything but reused shared files. */
    static void discardNewFiles(CheckpointStreamFactory streams, KeyedStateHandle handle) {
        if (handle instanceof IncrementalKeyedStateHandle incremental) {
            for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
                if (!file.reused()) {
                    discardQuietly(streams, file.handle());
                }
            }
            for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
                discardQuietly(streams, file.handle());
            }
            discardQuietly(streams, incremental.metaData());
        } else {
            handle.streams().forEach(stream -> discardQuietly(streams, stream));
        }
    }

    /** Deletes what {@code handle}, written through {@code streams}, refers to, as {@code streams} says; best effort. */
    static void discardQuietly(CheckpointStreamFactory streams, StreamStateHandle handle) {
        try {
            streams.discard(handle);
        } catch (IOException | RuntimeException ignored) {
            // best effort: a file left behind belongs to no checkpoint, and the orphan scan removes it
        }
    }
}

package io.duraflow.state.rocksdb;

import java.io.IOException;

/**
 * Keeps the database open while asynchronous snapshot parts read it: each {@linkplain #acquire
 * takes a lease}, and {@link #closeAndAwait()} (on dispose) refuses new leases and waits until the
 * last lease is returned, so no thread ever touches a closed native database (which would crash the
 * process, not throw). Parts check {@link #isClosed()} between units of work and stop early.
 */
final class ResourceGuard {
    private final String owner;
    private int leases;
    private boolean closed;

    ResourceGuard(String owner) {
        this.owner = owner;
    }

    /** A lease to return with {@link #release()}. */
    synchronized void acquire() throws IOException {
        if (closed) {
            throw new IOException(owner + ": the RocksDB state backend was disposed");
        }
        leases++;
    }

    synchronized void release() {
        if (--leases == 0) {
            notifyAll();
        }
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** Refuses new leases and waits for the current ones; uninterruptible (dispose must not leave a reader behind). */
    synchronized void closeAndAwait() {
        closed = true;
        boolean interrupted = false;
        while (leases > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

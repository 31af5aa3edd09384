package io.duraflow.checkpoint;

import io.duraflow.util.Futures;
import io.duraflow.mailbox.Mailbox;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Runs the {@link CheckpointCoordinator}'s blocking I/O (id counter, metadata, completed store) on
 * its I/O executor and hands each result back on the main thread, so the coordinator's state is
 * only ever touched there. The executor must be sequential: a restore then reads the store only
 * after a finalization that began earlier.
 */
final class MainThreadIo {
    private final Executor io;
    private final Mailbox mainThread;

    MainThreadIo(Executor io, Mailbox mainThread) {
        this.io = io;
        this.mainThread = mainThread;
    }

    /** Runs {@code action} on the I/O executor; the returned future completes on the main thread. */
    <T> CompletableFuture<T> run(IoAction<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        io.execute(() -> {
            T value;
            try {
                value = action.run();
            } catch (Exception e) {
                mainThread.execute(() -> result.completeExceptionally(e));
                return;
            }
            mainThread.execute(() -> result.complete(value));
        });
        return result;
    }

    @FunctionalInterface
    interface IoAction<T> {
        T run() throws Exception;
    }

    /** The message of the cause of a failed future, for a one-line failure. */
    static String describe(Throwable error) {
        Throwable cause = Futures.unwrap(error);
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}

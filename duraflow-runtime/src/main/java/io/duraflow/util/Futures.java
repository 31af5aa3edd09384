package io.duraflow.util;

import java.util.concurrent.CompletionException;

/** Helpers for {@link java.util.concurrent.CompletableFuture} failures. */
public final class Futures {
    private Futures() {}

    /**
     * The failure a future's stage actually threw: {@code CompletionException}s that stages wrap
     * around it are taken off, however deep.
     */
    public static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}

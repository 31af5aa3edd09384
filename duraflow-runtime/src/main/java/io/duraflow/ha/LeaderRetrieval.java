package io.duraflow.ha;

import java.time.Duration;
import java.util.function.Consumer;

/** Finds the current leader JobManager and follows changes. */
public interface LeaderRetrieval extends AutoCloseable {
    /** Calls {@code listener} with each new leader (null while there is none). */
    void start(Consumer<LeaderInfo> listener) throws Exception;

    /** The leader now, waiting up to {@code timeout} for one; null if none appeared. */
    LeaderInfo awaitLeader(Duration timeout) throws InterruptedException;

    @Override
    void close() throws Exception;
}

package io.duraflow.taskmanager.task.streaming;

import io.duraflow.taskmanager.task.MailboxProcessor;

/**
 * The task's clock and its wake-ups, for processing-time timers. A wake-up runs as a mail on the
 * task thread, never in the middle of a record; tests drive a manual implementation.
 */
interface ProcessingTimeService {
    /** Milliseconds since the epoch. */
    long currentTimeMs();

    /** Runs {@code action} on the task thread once {@link #currentTimeMs()} reached {@code timeMs}. */
    void wakeUpAt(long timeMs, MailboxProcessor.Mail action);
}

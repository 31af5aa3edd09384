package io.duraflow.taskmanager.task.streaming;

import io.duraflow.taskmanager.task.MailboxProcessor;
import io.duraflow.taskmanager.task.StreamEnvironment;
import java.util.concurrent.TimeUnit;

/**
 * The task's clock and its wake-ups, for processing-time timers. A wake-up runs as a mail on the
 * task thread, never in the middle of a record; tests drive a manual implementation.
 */
interface ProcessingTimeService {
    /** Milliseconds since the epoch. */
    long currentTimeMs();

    /** Runs {@code action} on the task thread once {@link #currentTimeMs()} reached {@code timeMs}. */
    void wakeUpAt(long timeMs, MailboxProcessor.Mail action);

    /** The TaskManager's clock and timer thread; a wake-up puts {@code action} into {@code mailbox}. */
    static ProcessingTimeService of(StreamEnvironment streaming, MailboxProcessor mailbox) {
        return new ProcessingTimeService() {
            @Override
            public long currentTimeMs() {
                return streaming.currentTimeMs();
            }

            @Override
            public void wakeUpAt(long timeMs, MailboxProcessor.Mail action) {
                long delayMs = Math.max(0, timeMs - streaming.currentTimeMs());
                streaming.timers().schedule(() -> mailbox.put(action), delayMs, TimeUnit.MILLISECONDS);
            }
        };
    }
}

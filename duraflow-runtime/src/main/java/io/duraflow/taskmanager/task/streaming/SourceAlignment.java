package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.eventtime.WatermarkStrategy;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * A source reader's side of watermark alignment ({@link WatermarkStrategy#withAlignment}): every
 * update interval the reader reports its watermark to the JobManager, which answers with the
 * lowest watermark of the reader's alignment group ({@code WatermarkAlignmentGroups}); while the
 * reader's watermark is more than the maximum drift ahead of that minimum, the task does not poll
 * the reader ({@link #paused}). It keeps taking mails meanwhile: checkpoint triggers, splits,
 * periodic watermarks, and its own reports, so an announcement that the group caught up reaches it.
 *
 * <p>What it reports: {@code Long.MAX_VALUE} while the reader is idle and once its watermark is
 * the end of time (its input ended; reports stop then), so it holds nobody back; nothing while it
 * has no watermark yet ({@code Long.MIN_VALUE}, no split read). Until the first announcement the
 * reader runs, so no group waits for itself at the start.
 *
 * <p>The whole reader pauses, not single splits: a reader whose splits are far apart in event time
 * is held by the one ahead (the reader's watermark is that of its split behind, so it pauses only
 * when all of them are ahead). Nothing here is checkpointed; after a restore the JobManager
 * rebuilds the group's minimum from new reports. Task thread only.
 */
final class SourceAlignment {
    private final long maxDriftMs;
    private final long updateIntervalMs;
    private final LongSupplier watermark;
    private final BooleanSupplier idle;
    private final LongConsumer report;
    private final ProcessingTimeService clock;
    /** Whether an announcement came: until then the reader runs. */
    private boolean announced;
    /** The group's minimum last announced. */
    private long groupMinimum;
    /** Whether the end of time was reported: nothing more is. */
    private boolean ended;

    /**
     * @param watermark the reader's current watermark
     * @param idle whether the reader is idle
     * @param report sends a watermark report to the JobManager
     */
    SourceAlignment(WatermarkStrategy.Alignment alignment, LongSupplier watermark, BooleanSupplier idle,
            LongConsumer report, ProcessingTimeService clock) {
        this.maxDriftMs = alignment.maxDrift().toMillis();
        this.updateIntervalMs = Math.max(1, alignment.updateInterval().toMillis());
        this.watermark = watermark;
        this.idle = idle;
        this.report = report;
        this.clock = clock;
    }

    /** The alignment of a source with {@code strategy}, reporting from now on; null if it has none (no reports). */
    static SourceAlignment start(WatermarkStrategy<?> strategy, SourceEventTime eventTime, LongConsumer report,
            ProcessingTimeService clock) {
        if (strategy.alignment().isEmpty()) {
            return null;
        }
        SourceAlignment alignment = new SourceAlignment(strategy.alignment().get(), eventTime::currentWatermark,
                eventTime::isIdle, report, clock);
        alignment.scheduleReport();
        return alignment;
    }

    /** Whether a reader at {@code watermark} may read, {@code maxDriftMs} allowed ahead of {@code groupMinimum}. */
    static boolean mayRead(long watermark, long groupMinimum, long maxDriftMs) {
        long allowed = groupMinimum > Long.MAX_VALUE - maxDriftMs ? Long.MAX_VALUE : groupMinimum + maxDriftMs;
        return watermark <= allowed;
    }

    /** Whether the task must not poll the reader now: it is too far ahead of its group. */
    boolean paused() {
        return announced && !mayRead(watermark.getAsLong(), groupMinimum, maxDriftMs);
    }

    /** The JobManager announced the group's minimum (the answer to a report). */
    void onAnnouncement(long minimum) {
        announced = true;
        groupMinimum = minimum;
    }

    /** The next report, one update interval from now, and each one after it until the end of time is reported. */
    void scheduleReport() {
        clock.wakeUpAt(clock.currentTimeMs() + updateIntervalMs, () -> {
            reportNow();
            if (!ended) {
                scheduleReport();
            }
        });
    }

    /** Reports the reader's watermark, if it has one; the end of time only once. */
    void reportNow() {
        if (ended) {
            return;
        }
        long current = watermark.getAsLong();
        if (current == Long.MAX_VALUE) {
            ended = true;
        }
        if (idle.getAsBoolean() || ended) {
            report.accept(Long.MAX_VALUE);
        } else if (current != Long.MIN_VALUE) {
            report.accept(current);
        }
    }
}

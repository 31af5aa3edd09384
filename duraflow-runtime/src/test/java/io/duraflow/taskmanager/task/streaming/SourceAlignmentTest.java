package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.eventtime.WatermarkStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A reader's side of watermark alignment: its reports and its pause decision, on a manual clock. */
class SourceAlignmentTest {
    private static final long DRIFT_MS = 1_000;
    private static final long INTERVAL_MS = 100;

    private final KeyedProcessOperatorTest.ManualTime clock = new KeyedProcessOperatorTest.ManualTime();
    private final List<Long> reports = new ArrayList<>();
    private long watermark = Long.MIN_VALUE;
    private boolean idle;
    private final SourceAlignment alignment = new SourceAlignment(
            new WatermarkStrategy.Alignment("g", Duration.ofMillis(DRIFT_MS), Duration.ofMillis(INTERVAL_MS)),
            () -> watermark, () -> idle, reports::add, clock);

    @Test
    void mayReadUpToTheMaximumDriftAheadOfTheGroup() {
        assertThat(SourceAlignment.mayRead(5_000, 4_000, DRIFT_MS)).as("exactly the drift ahead").isTrue();
        assertThat(SourceAlignment.mayRead(5_001, 4_000, DRIFT_MS)).isFalse();
        assertThat(SourceAlignment.mayRead(3_000, 4_000, DRIFT_MS)).as("behind the group").isTrue();
        assertThat(SourceAlignment.mayRead(Long.MAX_VALUE - 1, Long.MAX_VALUE, DRIFT_MS))
                .as("every reader idle or ended: no overflow").isTrue();
        assertThat(SourceAlignment.mayRead(Long.MAX_VALUE - 1, Long.MAX_VALUE - 10, DRIFT_MS)).isTrue();
    }

    @Test
    void readsUntilTheFirstAnnouncementThenPausesWhileTooFarAhead() {
        watermark = 100_000;
        assertThat(alignment.paused()).as("no announcement yet: no deadlock at the start").isFalse();
        alignment.onAnnouncement(98_000);
        assertThat(alignment.paused()).isTrue();
        alignment.onAnnouncement(99_000);
        assertThat(alignment.paused()).as("the group caught up to within the drift").isFalse();
        watermark = 100_001;
        assertThat(alignment.paused()).as("the reader's own watermark ran ahead").isTrue();
        alignment.onAnnouncement(Long.MAX_VALUE);
        assertThat(alignment.paused()).as("every reader of the group idle or ended").isFalse();
    }

    @Test
    void reportsEveryIntervalOnlyOnceItHasAWatermark() throws Exception {
        SourceAlignment started = startedAlignment();
        clock.advanceTo(clock.now + INTERVAL_MS);
        assertThat(reports).as("no watermark yet: nothing to report").isEmpty();
        watermark = 2_000;
        clock.advanceTo(clock.now + INTERVAL_MS);
        watermark = 2_500;
        clock.advanceTo(clock.now + INTERVAL_MS);
        assertThat(reports).containsExactly(2_000L, 2_500L);
        assertThat(started.paused()).isFalse();
    }

    @Test
    void anIdleReaderReportsTheEndOfTimeAndAnEndedOneStopsReporting() throws Exception {
        startedAlignment();
        watermark = 3_000;
        idle = true;
        clock.advanceTo(clock.now + INTERVAL_MS);
        idle = false;
        clock.advanceTo(clock.now + INTERVAL_MS);
        watermark = Long.MAX_VALUE; // the input ended
        clock.advanceTo(clock.now + INTERVAL_MS);
        clock.advanceTo(clock.now + INTERVAL_MS);
        assertThat(reports).containsExactly(Long.MAX_VALUE, 3_000L, Long.MAX_VALUE);
        assertThat(clock.wakeUps).as("no more reports are scheduled").isEmpty();
    }

    @Test
    void aSourceWithoutAlignmentReportsNothing() {
        assertThat(SourceAlignment.start(WatermarkStrategy.forMonotonousTimestamps(), null, reports::add, clock))
                .isNull();
        assertThat(clock.wakeUps).isEmpty();
    }

    /** Like {@link SourceAlignment#start}, on this test's watermark and clock. */
    private SourceAlignment startedAlignment() {
        SourceAlignment started = new SourceAlignment(
                new WatermarkStrategy.Alignment("g", Duration.ofMillis(DRIFT_MS), Duration.ofMillis(INTERVAL_MS)),
                () -> watermark, () -> idle, reports::add, clock);
        started.scheduleReport();
        return started;
    }
}

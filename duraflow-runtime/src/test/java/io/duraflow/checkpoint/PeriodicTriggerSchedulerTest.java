package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.mailbox.ManualMailbox;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules of {@link PeriodicTriggerScheduler}, each against a manual clock. */
class PeriodicTriggerSchedulerTest {
    private static final long INTERVAL = 100;

    private final ManualMailbox main = new ManualMailbox();
    private final List<Long> triggers = new ArrayList<>();
    private int inProgress;
    private PeriodicTriggerScheduler scheduler;

    /** Like the coordinator: a trigger is recorded, counts as in progress and reschedules. */
    private PeriodicTriggerScheduler scheduler(long minPauseMs, int maxConcurrent) {
        CheckpointCoordinatorConfig config = new CheckpointCoordinatorConfig(INTERVAL, 10_000, minPauseMs,
                maxConcurrent, 0, 1, 8);
        scheduler = new PeriodicTriggerScheduler(config, main, main::now, () -> inProgress, () -> {
            triggers.add(main.now());
            scheduler.onTriggered(main.now());
            inProgress++;
            scheduler.reschedule();
        });
        return scheduler;
    }

    private void completeOne() {
        inProgress--;
        scheduler.onCompleted(main.now());
        scheduler.reschedule();
    }

    @Test
    void rule1TheFirstTriggerComesOneIntervalAfterStartTheNextOneIntervalAfterTheLast() {
        scheduler(0, 3).start(false);

        main.advance(INTERVAL - 1);
        assertThat(triggers).isEmpty();
        main.advance(1);
        assertThat(triggers).containsExactly(100L);
        main.advance(INTERVAL);
        assertThat(triggers).containsExactly(100L, 200L);
    }

    @Test
    void startedForAdoptedTasksTheFirstTriggerComesAtOnceTheNextOneIntervalLater() {
        scheduler(0, 3).start(true);

        main.advance(0);
        assertThat(triggers).containsExactly(0L);
        main.advance(INTERVAL);
        assertThat(triggers).containsExactly(0L, 100L);
    }

    @Test
    void rule1ATriggerByHandPushesThePeriodicOneBackByAnInterval() {
        scheduler(0, 3).start(false);
        main.advance(60);

        scheduler.onTriggered(main.now()); // by hand, no reschedule: the timer set for 100 finds it too early

        main.advance(INTERVAL - 60);
        assertThat(triggers).isEmpty();
        main.advance(59);
        assertThat(triggers).isEmpty();
        main.advance(1);
        assertThat(triggers).containsExactly(160L);
    }

    @Test
    void rule2AtMaxConcurrentNothingIsScheduledUntilOneEnds() {
        scheduler(0, 2).start(false);
        main.advance(2 * INTERVAL);
        assertThat(triggers).containsExactly(100L, 200L);

        main.advance(10 * INTERVAL);
        assertThat(triggers).hasSize(2);
        assertThat(main.pending()).isZero();

        completeOne();
        main.runDue();
        assertThat(triggers).containsExactly(100L, 200L, 1200L);
    }

    @Test
    void rule3TheMinPauseCountsFromTheEndOfTheCheckpointInProgress() {
        scheduler(500, 3).start(false);
        main.advance(INTERVAL);
        assertThat(triggers).containsExactly(100L);

        main.advance(1_000);
        assertThat(triggers).hasSize(1);
        assertThat(main.pending()).isZero();

        completeOne(); // at 1100
        main.advance(499);
        assertThat(triggers).hasSize(1);
        main.advance(1);
        assertThat(triggers).containsExactly(100L, 1600L);
    }

    @Test
    void stopCancelsTheTimerAndStartCountsTheIntervalFromThen() {
        scheduler(0, 3).start(false);
        main.advance(50);

        scheduler.stop();
        main.advance(1_000);
        assertThat(triggers).isEmpty();
        scheduler.reschedule();
        main.advance(1_000);
        assertThat(triggers).isEmpty();

        scheduler.start(false);
        main.advance(INTERVAL);
        assertThat(triggers).containsExactly(2150L);
    }
}

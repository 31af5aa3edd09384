package io.duraflow.examples.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ChunkBoundaryHold}'s rules, one test each. */
class ChunkBoundaryHoldTest {
    @Test
    void rule1NeverWaitsWithoutADecline() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        assertThat(hold.holdUntil(5)).isEqualTo(5);
        hold.onTrigger(10, false);
        assertThat(hold.holdUntil(20)).isEqualTo(20);
        hold.onTrigger(30, true);
        hold.onCheckpointComplete();
        assertThat(hold.holdUntil(40)).isEqualTo(40);
    }

    @Test
    void rule2LearnsTheRetryGapOnlyWithoutACompletionBetween() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onTrigger(0, true);
        hold.onTrigger(210, true);
        assertThat(hold.retryGapMs()).isEqualTo(210);
        hold.onTrigger(420, false);
        assertThat(hold.retryGapMs()).isEqualTo(210);
        hold.onTrigger(1420, true);  // after an available answer: the interval, not a retry
        assertThat(hold.retryGapMs()).isEqualTo(210);
        hold.onCheckpointComplete();
        hold.onTrigger(2400, true);
        assertThat(hold.retryGapMs()).isEqualTo(210);
    }

    @Test
    void rule3ReadsAnotherChunkWhenItEndsBeforeTheRetry() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onTrigger(0, true);
        hold.onTrigger(200, true);  // expected retry at 400
        hold.onChunkEnded(50);
        assertThat(hold.holdUntil(300)).isEqualTo(300);  // 300 + 50 + 5 < 400
        assertThat(hold.holdUntil(360)).isEqualTo(400 + ChunkBoundaryHold.LATE_MS);
    }

    @Test
    void rule4WaitsAtMostMaxHoldAndTheWholeOfItBeforeLearning() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(80);
        hold.onTrigger(0, true);
        assertThat(hold.holdUntil(10)).isEqualTo(90);
        hold.onTrigger(200, true);
        hold.onChunkEnded(50);
        assertThat(hold.holdUntil(390)).isEqualTo(470);
        assertThat(new ChunkBoundaryHold(0).holdUntil(5)).isEqualTo(5);
    }

    @Test
    void rule5AWaitThatRanOutEndsTheHold() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onTrigger(0, true);
        hold.onHoldExpired();
        assertThat(hold.holdUntil(1100)).isEqualTo(1100);
    }
}

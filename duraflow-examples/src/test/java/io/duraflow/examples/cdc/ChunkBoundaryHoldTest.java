package io.duraflow.examples.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ChunkBoundaryHold}'s rules, one test each. */
class ChunkBoundaryHoldTest {
    @Test
    void rule1WaitsOnlyWhileACheckpointItSawHasNotCompleted() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onChunkEnded(300);
        assertThat(hold.holdUntil(5)).isEqualTo(5);
        hold.onTrigger(10, false);
        assertThat(hold.holdUntil(20)).as("took part, may still complete").isEqualTo(20);
        hold.onCheckpointComplete();
        assertThat(hold.holdUntil(400)).isEqualTo(400);
        hold.onTrigger(1000, true);
        hold.onCheckpointComplete();
        assertThat(hold.holdUntil(1040)).isEqualTo(1040);
    }

    @Test
    void rule1WaitsAfterTakingPartInACheckpointThatDidNotComplete() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onChunkEnded(300);
        hold.onTrigger(0, false);
        assertThat(hold.holdUntil(ChunkBoundaryHold.COMPLETION_GRACE_MS)).isEqualTo(ChunkBoundaryHold.COMPLETION_GRACE_MS);
        assertThat(hold.holdUntil(160)).as("another reader declined it").isEqualTo(
                ChunkBoundaryHold.ASSUMED_RETRY_GAP_MS + ChunkBoundaryHold.LATE_MS);
    }

    @Test
    void rule2LearnsTheRetryGapOnlyWithoutACompletionBetween() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onTrigger(0, true);
        hold.onTrigger(210, false);
        assertThat(hold.retryGapMs()).isEqualTo(210);
        hold.onTrigger(430, true);  // the one at 210 did not complete either: another reader declined it
        assertThat(hold.retryGapMs()).isEqualTo(220);
        hold.onCheckpointComplete();
        hold.onTrigger(1430, true);
        assertThat(hold.retryGapMs()).isEqualTo(220);
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
    void rule4WaitsUntilTheExpectedRetryAtMostMaxHoldAssumingTheDefaultDelayBeforeLearning() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onTrigger(0, true);
        hold.onChunkEnded(250);
        assertThat(hold.holdUntil(10)).isEqualTo(ChunkBoundaryHold.ASSUMED_RETRY_GAP_MS + ChunkBoundaryHold.LATE_MS);
        ChunkBoundaryHold shortHold = new ChunkBoundaryHold(80);
        shortHold.onTrigger(0, true);
        shortHold.onTrigger(200, true);
        shortHold.onChunkEnded(50);
        assertThat(shortHold.holdUntil(390)).isEqualTo(470);
        assertThat(new ChunkBoundaryHold(0).holdUntil(5)).isEqualTo(5);
    }

    @Test
    void rule5AWaitThatRanOutEndsTheHoldUntilTheNextTrigger() {
        ChunkBoundaryHold hold = new ChunkBoundaryHold(1000);
        hold.onChunkEnded(300);
        hold.onTrigger(0, true);
        hold.onHoldExpired();
        assertThat(hold.holdUntil(1100)).isEqualTo(1100);
        hold.onTrigger(1200, true);
        assertThat(hold.holdUntil(2300)).as("retry expected at 2400").isEqualTo(2400 + ChunkBoundaryHold.LATE_MS);
    }
}

package io.duraflow.api.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SnapshotAvailabilityTest {
    @Test
    void theThreeAnswersCarryTheirKindAndAFailureNeedsAMessage() {
        assertThat(SnapshotAvailability.available().isAvailable()).isTrue();
        assertThat(SnapshotAvailability.available().message()).isEmpty();
        SnapshotAvailability soft = SnapshotAvailability.softFailure("reading chunk 7 of table orders");
        assertThat(soft.kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        assertThat(soft).hasToString("soft failure: reading chunk 7 of table orders")
                .isEqualTo(SnapshotAvailability.softFailure("reading chunk 7 of table orders"));
        assertThat(SnapshotAvailability.hardFailure("position lost").kind())
                .isEqualTo(SnapshotAvailability.Kind.HARD_FAILURE);
        assertThatThrownBy(() -> SnapshotAvailability.softFailure(" "))
                .hasMessageContaining("say why the snapshot is unavailable");
    }

    @Test
    void softFailuresBecomeHardOnceTheyLastedLongerThanTheToleranceWithoutABreak() {
        long[] now = {0};
        SoftFailureTolerance tolerance = new SoftFailureTolerance(Duration.ofSeconds(10), () -> now[0]);
        SnapshotAvailability chunk = SnapshotAvailability.softFailure("in chunk 3");

        assertThat(tolerance.check(chunk)).isEqualTo(chunk);
        now[0] = 10_000;
        assertThat(tolerance.check(chunk)).isEqualTo(chunk);
        now[0] = 10_001;
        assertThat(tolerance.check(chunk)).isEqualTo(SnapshotAvailability.hardFailure(
                "unavailable for 10001 ms, longer than the 10000 ms it may be: in chunk 3"));

        // Available once ends the run: the next soft failure starts a new one.
        assertThat(tolerance.check(SnapshotAvailability.available()).isAvailable()).isTrue();
        now[0] = 30_000;
        assertThat(tolerance.check(chunk)).isEqualTo(chunk);
        now[0] = 39_000;
        assertThat(tolerance.check(chunk)).isEqualTo(chunk);
    }

    @Test
    void aHardFailurePassesAndDoesNotEndARunOfSoftOnes() {
        long[] now = {0};
        SoftFailureTolerance tolerance = new SoftFailureTolerance(Duration.ofMillis(100), () -> now[0]);
        tolerance.check(SnapshotAvailability.softFailure("a"));
        now[0] = 50;
        SnapshotAvailability hard = SnapshotAvailability.hardFailure("broken");
        assertThat(tolerance.check(hard)).isSameAs(hard);
        now[0] = 101;
        assertThat(tolerance.check(SnapshotAvailability.softFailure("a")).kind())
                .isEqualTo(SnapshotAvailability.Kind.HARD_FAILURE);
    }
}

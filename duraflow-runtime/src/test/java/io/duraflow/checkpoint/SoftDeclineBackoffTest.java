package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SoftDeclineBackoffTest {
    @Test
    void theDelayDoublesUpToTheIntervalAndAResetMakesItQuickAgain() {
        SoftDeclineBackoff backoff = new SoftDeclineBackoff(200, 1_000);
        assertThat(new long[] {backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs(),
                backoff.nextDelayMs(), backoff.nextDelayMs()}).containsExactly(200, 400, 800, 1_000, 1_000);
        backoff.reset();
        assertThat(backoff.nextDelayMs()).isEqualTo(200);
    }

    @Test
    void withoutARetryDelayThereIsNoEarlyRetryAndHugeIntervalsDoNotOverflow() {
        assertThat(new SoftDeclineBackoff(0, 1_000).nextDelayMs()).isEqualTo(-1);
        SoftDeclineBackoff backoff = new SoftDeclineBackoff(1, Long.MAX_VALUE);
        long delay = 0;
        for (int i = 0; i < 100; i++) {
            delay = backoff.nextDelayMs();
            assertThat(delay).isPositive();
        }
        assertThat(delay).isEqualTo(Long.MAX_VALUE);
    }
}

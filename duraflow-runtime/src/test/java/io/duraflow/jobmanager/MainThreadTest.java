package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MainThreadTest {
    @Test
    void anExceptionThatEscapesAnActionIsHandedToTheOwnerNotOnlyLogged() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        try (MainThread main = new MainThread()) {
            main.onUncaughtException(seen::set);
            main.execute(() -> {
                throw new IllegalStateException("broken invariant");
            });
            await().until(() -> seen.get() != null);
            assertThat(seen.get()).hasMessage("broken invariant");
        }
    }

    @Test
    void aTakeOverThatKeepsFailingBacksOffUpToThirtySeconds() {
        assertThat(JobManagerRunner.rejoinDelayMs(1)).isZero();
        assertThat(JobManagerRunner.rejoinDelayMs(2)).isEqualTo(1_000);
        assertThat(JobManagerRunner.rejoinDelayMs(3)).isEqualTo(2_000);
        assertThat(JobManagerRunner.rejoinDelayMs(7)).isEqualTo(30_000);
        assertThat(JobManagerRunner.rejoinDelayMs(1_000)).isEqualTo(30_000);
    }
}

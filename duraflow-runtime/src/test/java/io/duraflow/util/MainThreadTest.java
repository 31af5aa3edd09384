package io.duraflow.util;

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
    void lateCallbacksAfterCloseAreDroppedAndCallsFailWithAClearError() {
        MainThread main = new MainThread();
        main.close();
        // An RPC answer that arrives after the JobManager closed must not throw into gRPC's thread.
        main.execute(() -> { });
        main.schedule(() -> { }, 10).cancel();
        main.scheduleAtFixedRate(() -> { }, 10).cancel();
        assertThat(main.call(() -> 1)).failsWithin(java.time.Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withMessageContaining("the JobManager is shutting down");
    }
}

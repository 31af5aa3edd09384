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
}

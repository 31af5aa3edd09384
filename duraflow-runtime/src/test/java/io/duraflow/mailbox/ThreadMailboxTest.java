package io.duraflow.mailbox;

import java.util.concurrent.atomic.AtomicReference;
import static org.awaitility.Awaitility.await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The real mailbox: a mail that throws is fatal, never only logged; the guard knows its thread. */
class ThreadMailboxTest {
    @Test
    void aMailThatThrowsGoesToTheFatalErrorHandlerAndLaterMailsStillRun() throws Exception {
        CompletableFuture<Throwable> fatal = new CompletableFuture<>();
        CompletableFuture<String> later = new CompletableFuture<>();
        try (ThreadMailbox mailbox = new ThreadMailbox("test-mailbox", fatal::complete)) {
            mailbox.execute(() -> {
                throw new IllegalStateException("slot table corrupt");
            });
            mailbox.execute(() -> later.complete(Thread.currentThread().getName()));

            assertThat(fatal.get(10, TimeUnit.SECONDS)).hasMessage("slot table corrupt");
            assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo("test-mailbox");
        }
    }

    @Test
    void theGuardPassesInMailsAndRefusesOtherThreads() throws Exception {
        try (ThreadMailbox mailbox = new ThreadMailbox("test-mailbox", error -> {})) {
            CompletableFuture<Boolean> inMail = new CompletableFuture<>();
            mailbox.execute(() -> {
                mailbox.assertRunningInMailbox();
                inMail.complete(true);
            });

            assertThat(inMail.get(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(mailbox::assertRunningInMailbox).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not on " + Thread.currentThread().getName());
        }
    }

    @Test
    void anExceptionThatEscapesAnActionIsHandedToTheOwnerNotOnlyLogged() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        try (ThreadMailbox main = new ThreadMailbox("jobmanager-main")) {
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
        ThreadMailbox main = new ThreadMailbox("jobmanager-main");
        main.close();
        // An RPC answer that arrives after the JobManager closed must not throw into gRPC's thread.
        main.execute(() -> { });
        main.schedule(() -> { }, 10).cancel();
        main.scheduleAtFixedRate(() -> { }, 10).cancel();
        assertThat(main.call(() -> 1)).failsWithin(java.time.Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withMessageContaining("is shutting down");
    }
}

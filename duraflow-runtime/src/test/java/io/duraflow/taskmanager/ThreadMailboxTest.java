package io.duraflow.taskmanager;

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
}

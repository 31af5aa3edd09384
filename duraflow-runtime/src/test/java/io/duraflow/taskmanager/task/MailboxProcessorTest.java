package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MailboxProcessorTest {
    private final List<String> log = new CopyOnWriteArrayList<>();

    @Test
    void mailsFromOtherThreadsRunBetweenDefaultActionsOnTheLoopThread() throws Exception {
        AtomicReference<MailboxProcessor> processor = new AtomicReference<>();
        AtomicReference<Thread> mailThread = new AtomicReference<>();
        int[] runs = {0};
        processor.set(new MailboxProcessor(controller -> {
            runs[0]++;
            log.add("action " + runs[0]);
            if (runs[0] == 2) {
                // Another thread puts the mail while action 2 runs: it must wait until action 2 ends.
                CompletableFuture.runAsync(() -> processor.get().put(() -> {
                    mailThread.set(Thread.currentThread());
                    log.add("mail");
                })).get(10, TimeUnit.SECONDS);
                log.add("action 2 ends");
            }
            if (runs[0] == 4) {
                controller.allActionsCompleted();
            }
        }));

        processor.get().runMailboxLoop();

        assertThat(log).containsExactly("action 1", "action 2", "action 2 ends", "mail", "action 3", "action 4");
        assertThat(mailThread.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void aMailPutFromInsideALongActionRunsAtItsNextYield() throws Exception {
        AtomicReference<MailboxProcessor> processor = new AtomicReference<>();
        processor.set(new MailboxProcessor(controller -> {
            log.add("buffer 1");
            processor.get().put(() -> log.add("mail"));
            processor.get().yieldToMails();
            log.add("buffer 2");
            processor.get().yieldToMails();
            controller.allActionsCompleted();
        }));

        processor.get().runMailboxLoop();

        assertThat(log).containsExactly("buffer 1", "mail", "buffer 2");
    }

    @Test
    void aMailWakesUpADefaultActionThatWaitsOutsideTheMailbox() throws Exception {
        CountDownLatch wokenUp = new CountDownLatch(1);
        AtomicReference<MailboxProcessor> processor = new AtomicReference<>();
        processor.set(new MailboxProcessor(controller -> {
            if (log.contains("mail")) {
                controller.allActionsCompleted();
                return;
            }
            log.add("waiting in a client"); // as a source reader in its consumer's poll
            if (!wokenUp.await(30, TimeUnit.SECONDS)) {
                log.add("timed out");
            }
        }));
        processor.get().onMailArrival(wokenUp::countDown);
        Thread mailer = new Thread(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("waiting in a client"));
            processor.get().put(() -> log.add("mail"));
        });
        mailer.start();

        processor.get().runMailboxLoop();
        mailer.join();

        assertThat(log).containsExactly("waiting in a client", "mail");
        processor.get().onMailArrival(null);
        processor.get().put(() -> { }); // nobody is told any more
    }

    @Test
    void anExceptionInAMailEndsTheLoopWithThatCause() {
        IllegalStateException cause = new IllegalStateException("bad split");
        MailboxProcessor processor = new MailboxProcessor(controller -> log.add("action"));
        processor.put(() -> {
            throw cause;
        });
        assertThatThrownBy(processor::runMailboxLoop).isSameAs(cause);
        assertThat(log).isEmpty();
    }

    @Test
    void anExceptionInTheDefaultActionEndsTheLoopWithThatCause() {
        Exception cause = new java.io.IOException("disk gone");
        MailboxProcessor processor = new MailboxProcessor(controller -> {
            throw cause;
        });
        assertThatThrownBy(processor::runMailboxLoop).isSameAs(cause);
    }

    @Test
    void aSuspendedLoopWakesUpForAMailLongBeforeItsWaitEnds() throws Exception {
        CountDownLatch suspended = new CountDownLatch(1);
        MailboxProcessor processor = new MailboxProcessor(controller -> {
            if (suspended.getCount() == 1) {
                suspended.countDown();
                controller.suspendUntilMail(60_000);
            } else {
                controller.allActionsCompleted();
            }
        });
        CompletableFuture<Void> loop = CompletableFuture.runAsync(() -> {
            try {
                processor.runMailboxLoop();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(suspended.await(10, TimeUnit.SECONDS)).isTrue();
        processor.put(() -> log.add("mail"));
        await().atMost(Duration.ofSeconds(10)).until(loop::isDone);
        assertThat(log).containsExactly("mail");
    }
}

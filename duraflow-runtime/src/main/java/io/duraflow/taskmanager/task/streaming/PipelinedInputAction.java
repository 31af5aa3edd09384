package io.duraflow.taskmanager.task.streaming;

import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.duraflow.taskmanager.task.MailboxProcessor;

/**
 * The default action of a streaming task that reads pipelined input: what the wiring into {@link
 * Task} plugs into its {@link MailboxProcessor}. Per run:
 * <ol>
 *   <li>flushes every output whose buffer timeout passed (the task thread drives the timer, see
 *       {@link PipelinedResultPartition});</li>
 *   <li>if an output is unavailable (backpressure), suspends until it is, without reading input,
 *       so user code is never entered with nowhere to write;</li>
 *   <li>otherwise handles one element of the gate; when the gate has nothing, suspends until it has.</li>
 * </ol>
 * Suspending never spins: the awaited future puts a no-op mail when it completes, which wakes the
 * mailbox, and the wait is bounded by the earliest output flush deadline so an idle task still
 * flushes on time. Task thread only.
 */
public final class PipelinedInputAction implements MailboxProcessor.DefaultAction {
    /** Longest wait when no flush is pending; the awaited future's mail normally ends it much sooner. */
    private static final long MAX_IDLE_WAIT_MS = 60_000;
    private static final MailboxProcessor.Mail WAKE_UP = () -> { };

    private final PipelinedInputGate gate;
    private final PipelinedInputGate.Handler handler;
    private final List<PipelinedResultPartition> outputs;
    private final Consumer<MailboxProcessor.Mail> mailbox;
    /** The future a wake-up mail is registered on, so each future gets one callback however often we wait on it. */
    private CompletableFuture<Void> wakeUpRegisteredOn;
    private long backpressuredWaits;
    private long idleWaits;

    /**
     * @param mailbox {@link MailboxProcessor#put} of the task's mailbox
     */
    public PipelinedInputAction(PipelinedInputGate gate, PipelinedInputGate.Handler handler,
            List<PipelinedResultPartition> outputs, Consumer<MailboxProcessor.Mail> mailbox) {
        this.gate = gate;
        this.handler = handler;
        this.outputs = List.copyOf(outputs);
        this.mailbox = mailbox;
    }

    @Override
    public void run(MailboxProcessor.Controller controller) throws Exception {
        for (PipelinedResultPartition output : outputs) {
            output.flushIfDue();
        }
        for (PipelinedResultPartition output : outputs) {
            if (!output.isAvailable()) {
                backpressuredWaits++;
                suspendUntil(output.availability(), controller, true);
                return;
            }
        }
        InputStatus status = gate.pollNext(handler);
        if (status == InputStatus.END_OF_INPUT) {
            controller.allActionsCompleted();
        } else if (status == InputStatus.NOTHING_AVAILABLE) {
            idleWaits++;
            suspendUntil(gate.availability(), controller, false);
        }
    }

    private void suspendUntil(CompletableFuture<Void> future, MailboxProcessor.Controller controller,
            boolean forOutput) {
        if (future.isDone()) {
            return; // ready meanwhile: run again at once
        }
        if (future != wakeUpRegisteredOn) {
            wakeUpRegisteredOn = future;
            future.thenRun(() -> mailbox.accept(WAKE_UP));
        }
        if (forOutput) {
            controller.suspendUntilOutput(waitMs());
        } else {
            controller.suspendUntilMail(waitMs());
        }
    }

    /** Until the earliest output flush deadline, rounded up, at least 1 ms (0 would not suspend). */
    private long waitMs() {
        long nanos = Long.MAX_VALUE;
        for (PipelinedResultPartition output : outputs) {
            nanos = Math.min(nanos, output.nanosUntilFlush());
        }
        if (nanos == Long.MAX_VALUE) {
            return MAX_IDLE_WAIT_MS;
        }
        return Math.max(1, Math.min(MAX_IDLE_WAIT_MS, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999)));
    }

    /** How often the task waited because an output was unavailable; for status and tests. */
    public long backpressuredWaits() {
        return backpressuredWaits;
    }

    /** How often the task waited for input; for status and tests. */
    long idleWaits() {
        return idleWaits;
    }
}

package io.duraflow.simulation;

import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The network between the simulated processes, in place of gRPC: unary calls whose request and
 * answer each take a seeded delay (so two calls may overtake each other), and which fail as gRPC
 * calls do:
 * <ul>
 *   <li>to a dead process: UNAVAILABLE, after a delay (connection refused); a process that dies
 *       with calls in flight fails them with UNAVAILABLE (connection reset);
 *   <li>to a frozen process: the request waits in the callee's mailbox until it thaws, and the
 *       caller's deadline fails the call with DEADLINE_EXCEEDED meanwhile;
 *   <li>cut off by the caller (a closed channel): UNAVAILABLE at once.
 * </ul>
 * Completing a call's future is what a gRPC thread does: the caller's code hops into its own
 * mailbox from there. The wire itself is a mailbox of a process that never dies or freezes.
 */
final class SimNetwork {
    private final Random random;
    private final SimMailbox wire;
    private final int maxDelayMs;
    private final List<Call<?>> inFlight = new ArrayList<>();
    private final List<Watch> watches = new ArrayList<>();
    private long calls;

    SimNetwork(SimScheduler scheduler, Random random, int maxDelayMs) {
        this.random = random;
        this.wire = scheduler.mailbox("network", new SimProcess("network"));
        this.maxDelayMs = maxDelayMs;
    }

    /** How a callee answers a call, once, from any of its mailboxes. */
    interface Answer<A> {
        void ok(A value);

        void fail(Throwable error);
    }

    /** One call in flight; cut off by a predicate over it. */
    static final class Call<A> {
        final SimProcess from;
        final SimProcess to;
        final Object tag;
        final CompletableFuture<A> future = new CompletableFuture<>();

        Call(SimProcess from, SimProcess to, Object tag) {
            this.from = from;
            this.to = to;
            this.tag = tag;
        }
    }

    long calls() {
        return calls;
    }

    /** A delay for one message: mostly a few milliseconds, now and then enough to overtake others. */
    private long delay() {
        return random.nextInt(8) == 0 ? random.nextInt(maxDelayMs + 1) : random.nextInt(3);
    }

    /**
     * Calls {@code to}: {@code handler} runs in {@code at} (a mailbox of the callee) after the
     * request's delay, and answers through the {@link Answer}.
     *
     * @param tag names the call for {@link #cutOff}, e.g. the client or connection it went through
     */
    <A> CompletableFuture<A> call(SimProcess from, SimProcess to, SimMailbox at, long deadlineMs, Object tag,
            Consumer<Answer<A>> handler) {
        calls++;
        Call<A> call = new Call<>(from, to, tag);
        if (to == null || !to.alive()) {
            wire.schedule(() -> fail(call, unavailable("connection refused")), delay());
            return call.future;
        }
        inFlight.add(call);
        wire.schedule(() -> fail(call, Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded after "
                + deadlineMs + " ms (simulated)").asRuntimeException()), deadlineMs);
        at.schedule(() -> handler.accept(new Answer<>() {
            @Override
            public void ok(A value) {
                wire.schedule(() -> complete(call, value), delay());
            }

            @Override
            public void fail(Throwable error) {
                wire.schedule(() -> SimNetwork.this.fail(call, error), delay());
            }
        }), delay());
        return call.future;
    }

    private <A> void complete(Call<A> call, A value) {
        inFlight.remove(call);
        call.future.complete(value);
    }

    private void fail(Call<?> call, Throwable error) {
        inFlight.remove(call);
        call.future.completeExceptionally(error);
    }

    /** The caller closed its channel: its calls matching {@code which} fail with UNAVAILABLE at once. */
    void cutOff(Predicate<Call<?>> which, Throwable error) {
        for (Call<?> call : List.copyOf(inFlight)) {
            if (which.test(call)) {
                fail(call, error);
            }
        }
    }

    /** {@code process} died: its calls in flight fail, and whoever watched its connections hears of it. */
    void died(SimProcess process) {
        for (Call<?> call : List.copyOf(inFlight)) {
            if (call.to == process && !call.future.isDone()) {
                wire.schedule(() -> fail(call, unavailable("connection reset by peer")), delay());
            }
        }
        for (Watch watch : List.copyOf(watches)) {
            if (watch.target == process) {
                watches.remove(watch);
                wire.schedule(watch.broken, delay());
            }
        }
    }

    /** A connection of a live process to {@code target}: {@code broken} runs once if target dies. */
    Runnable watch(SimProcess target, Runnable broken) {
        Watch watch = new Watch(target, broken);
        watches.add(watch);
        return () -> watches.remove(watch);
    }

    private record Watch(SimProcess target, Runnable broken) {}

    static StatusRuntimeException unavailable(String why) {
        return Status.UNAVAILABLE.withDescription("io exception: " + why + " (simulated)").asRuntimeException();
    }
}

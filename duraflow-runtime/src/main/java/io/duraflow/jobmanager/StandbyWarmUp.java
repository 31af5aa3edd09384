package io.duraflow.jobmanager;

import io.duraflow.jobmanager.dispatcher.StoredJobRecovery;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warms a JobManager's RPC paths once it listens, before anyone needs them: a standby that takes
 * over answers its first TaskManager registrations while the kept tasks keep every core busy, and
 * the first request a cold gRPC server takes (connection, HTTP/2, method lookup, the protocol's
 * descriptors and message classes) took over a second then. One read-only call to itself over
 * loopback ({@code GetClusterOverview}: a standby refuses it, a leader answers it; neither changes
 * anything) and a parse of a registration move that cost to the start. Best effort: a failure
 * is logged at DEBUG and changes nothing.
 *
 * <p>Then, on the same thread, a JobManager that still stands by a second later loads the
 * classes a leader needs ({@link StandbyClassPreload}) for as long as it stands by, and rehearses
 * the reads a take-over starts with ({@link StoredJobRecovery#rehearseReads}): again every {@value
 * #REHEARSE_EVERY_MS} ms until it read an event log, which warms the paths a take-over of a
 * running batch job takes.
 */
public final class StandbyWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(StandbyWarmUp.class);
    private static final long DEADLINE_SECONDS = 10;
    /** How long a JobManager stands by before it preloads: a sole JobManager is granted leadership before. */
    private static final long PRELOAD_AFTER_MS = 1_000;
    static final long REHEARSE_EVERY_MS = 10_000;

    /** The reads a take-over starts with, results thrown away; returns how many event logs it read. */
    interface Rehearsal {
        int run(BooleanSupplier go) throws Exception;
    }

    private StandbyWarmUp() {}

    /**
     * Runs the warm-up on a daemon thread of its own (not the JobManager's I/O pool, which
     * recovery needs), then preloads while {@code standingBy}.
     */
    static void start(String address, BooleanSupplier standingBy, Rehearsal rehearsal) {
        Thread thread = new Thread(() -> {
            run(address);
            if (preloadWhileStandingBy(standingBy)) {
                rehearseWhileStandingBy(standingBy, rehearsal);
            }
        }, "standby-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether it still stands by once done. */
    private static boolean preloadWhileStandingBy(BooleanSupplier standingBy) {
        try {
            Thread.sleep(PRELOAD_AFTER_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!standingBy.getAsBoolean()) {
            return false;
        }
        long started = System.nanoTime();
        int loaded = StandbyClassPreload.preload(StandbyClassPreload.codeSources(), StandbyWarmUp.class.getClassLoader(),
                standingBy);
        LOG.info("Standing by: loaded {} classes a leader needs in {} ms{}", loaded,
                (System.nanoTime() - started) / 1_000_000, standingBy.getAsBoolean() ? "" : " (stopped: elected or closing)");
        return standingBy.getAsBoolean();
    }

    static void rehearseWhileStandingBy(BooleanSupplier standingBy, Rehearsal rehearsal) {
        while (standingBy.getAsBoolean()) {
            try {
                long started = System.nanoTime();
                int logs = rehearsal.run(standingBy);
                LOG.debug("Standing by: rehearsed a take-over's reads ({} event logs) in {} ms", logs,
                        (System.nanoTime() - started) / 1_000_000);
                if (logs > 0) {
                    return;
                }
            } catch (Exception e) {
                LOG.debug("Rehearsing a take-over's reads failed (nothing depends on it): {}", e.toString());
            }
            if (!standingBy.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(REHEARSE_EVERY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static void run(String address) {
        long started = System.nanoTime();
        try {
            RegisterTaskManagerRequest registration = RegisterTaskManagerRequest.newBuilder().setTmId("warm-up")
                    .setAddress("127.0.0.1:1").build();
            RegisterTaskManagerRequest.parseFrom(registration.toByteArray());
            ManagedChannel channel = Rpc.channel(address);
            try {
                DispatcherGatewayGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
                        .getClusterOverview(Empty.getDefaultInstance());
            } catch (StatusRuntimeException expected) {
                // A standby answers UNAVAILABLE: the way there and back is what warms up.
            } finally {
                Rpc.shutdown(channel);
            }
            LOG.debug("RPC paths warmed up in {} ms", (System.nanoTime() - started) / 1_000_000);
        } catch (Exception | LinkageError e) {
            LOG.debug("RPC warm-up failed (nothing depends on it): {}", e.toString());
        }
    }
}

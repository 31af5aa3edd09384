package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.jobmanager.resourcemanager.TaskManagerTransport.PingResult;
import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Suspicions that a registered TaskManager died, and the pings that settle them, so a killed
 * TaskManager is lost in a fraction of a second instead of {@code heartbeat.timeout}. Main thread
 * only; pings run on the transport's threads and come back through the mailbox. Its rules, numbered
 * as tests and code refer to them: see docs/design/failure-detection.md#taskmanagerprobes.
 */
public final class TaskManagerProbes {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerProbes.class);

    /**
     * How suspicions are settled.
     *
     * @param attempts refused pings in a row that make a suspected TaskManager lost; 0 turns
     *     suspicions off
     * @param intervalMs between a refused ping and the next
     * @param timeoutMs deadline of each ping
     */
    public record Settings(int attempts, long intervalMs, long timeoutMs) {
        static final Settings DEFAULT = new Settings(JobManagerOptions.SUSPECT_PROBE_ATTEMPTS.defaultValue(),
                JobManagerOptions.SUSPECT_PROBE_INTERVAL.defaultValue().toMillis(),
                JobManagerOptions.SUSPECT_PROBE_TIMEOUT.defaultValue().toMillis());

        public static Settings fromConfiguration(Configuration config) {
            return new Settings(config.get(JobManagerOptions.SUSPECT_PROBE_ATTEMPTS),
                    config.get(JobManagerOptions.SUSPECT_PROBE_INTERVAL).toMillis(),
                    config.get(JobManagerOptions.SUSPECT_PROBE_TIMEOUT).toMillis());
        }
    }

    /** Pings a TaskManager; {@code result} may be called on any thread. */
    interface Pinger {
        void ping(String tmId, long timeoutMs, Consumer<PingResult> result);
    }

    /** What a probe decided. */
    interface Verdicts {
        /** Declare the TaskManager lost (rules 4 and 5). */
        void lost(String tmId, String why);

        /** The TaskManager is kept (rules 3 and 6): its slots may be offered again. */
        void kept(String tmId);
    }

    /** One suspected TaskManager's probe; main thread only. */
    private static final class Probe {
        final String tmId;
        final String suspicion;
        final long startedMs;
        /** Told when the TaskManager is kept; dropped when it is lost (the loss handles their cause). */
        final List<Runnable> onKept = new ArrayList<>();
        int refused;
        Mailbox.Cancellable retry;

        Probe(String tmId, String suspicion, long startedMs) {
            this.tmId = tmId;
            this.suspicion = suspicion;
            this.startedMs = startedMs;
        }
    }

    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final Settings settings;
    private final Pinger pinger;
    private final Verdicts verdicts;
    /** By TaskManager id; main thread only. */
    private final Map<String, Probe> probes = new HashMap<>();
    private long probesStarted;

    TaskManagerProbes(Mailbox mainThread, LongSupplier clock, Settings settings, Pinger pinger,
            Verdicts verdicts) {
        if (settings.attempts() < 0 || settings.intervalMs() < 0 || settings.timeoutMs() <= 0) {
            throw new IllegalArgumentException("invalid suspect-probe settings " + settings);
        }
        this.mainThread = mainThread;
        this.clock = clock;
        this.settings = settings;
        this.pinger = pinger;
        this.verdicts = verdicts;
    }

    /**
     * A sign that the registered TaskManager {@code tmId} may be gone.
     *
     * @param onKept run if the probe keeps the TaskManager (null: nothing); not run if it is lost
     */
    void suspect(String tmId, String why, Runnable onKept) {
        mainThread.assertRunningInMailbox();
        if (settings.attempts() == 0) {
            LOG.info("TaskManager {} may be gone ({}); not probed (heartbeat.suspect-probe.attempts is 0)", tmId, why);
            if (onKept != null) {
                onKept.run();
            }
            return;
        }
        Probe probe = probes.get(tmId);
        if (probe != null) {
            LOG.debug("TaskManager {} may be gone ({}); already being probed", tmId, why);
        } else {
            probe = new Probe(tmId, why, clock.getAsLong());
            probes.put(tmId, probe);
            probesStarted++;
            LOG.info("TaskManager {} may be gone ({}); pinging it", tmId, why);
            ping(probe);
        }
        if (onKept != null) {
            probe.onKept.add(onKept);
        }
    }

    /** Whether suspicions are probed at all ({@code attempts} > 0). */
    boolean enabled() {
        return settings.attempts() > 0;
    }

    /** Whether a probe of the TaskManager runs now. */
    boolean isProbing(String tmId) {
        return probes.containsKey(tmId);
    }

    /** Probes started so far (joined suspicions not counted). */
    long probesStarted() {
        return probesStarted;
    }

    /**
     * The TaskManager's registration ended (lost, or registered again): its probe, if any, ends
     * without a verdict, and whatever waited for it is dropped, since the end of the registration
     * has reset everything that ran there.
     */
    void forget(String tmId) {
        Probe probe = probes.remove(tmId);
        if (probe != null && probe.retry != null) {
            probe.retry.cancel();
        }
    }

    private void ping(Probe probe) {
        probe.retry = null;
        if (probes.get(probe.tmId) != probe) {
            return;
        }
        pinger.ping(probe.tmId, settings.timeoutMs(), result -> mainThread.execute(() -> settle(probe, result)));
    }

    private void settle(Probe probe, PingResult result) {
        if (probes.get(probe.tmId) != probe) {
            return; // rule 7
        }
        long elapsedMs = clock.getAsLong() - probe.startedMs;
        if (result instanceof PingResult.Answered answered) {
            if (answered.tmId().isEmpty() || answered.tmId().equals(probe.tmId)) {
                keep(probe, "it answered a ping after " + elapsedMs + " ms");
            } else {
                lose(probe, "TaskManager " + answered.tmId() + " answers at its address now (suspected because "
                        + probe.suspicion + ")");
            }
        } else if (result instanceof PingResult.Refused refused) {
            probe.refused++;
            if (probe.refused >= settings.attempts()) {
                lose(probe, probe.refused + " pings in " + elapsedMs + " ms were refused (" + refused.reason()
                        + "), after " + probe.suspicion);
            } else {
                probe.retry = mainThread.schedule(() -> ping(probe), settings.intervalMs());
            }
        } else if (result instanceof PingResult.NoAnswer none) {
            keep(probe, "its ping was inconclusive (" + none.reason() + "); its heartbeats decide");
        } else {
            throw new IllegalStateException("unknown ping result " + result);
        }
    }

    private void keep(Probe probe, String why) {
        probes.remove(probe.tmId);
        LOG.info("TaskManager {} is kept: {}", probe.tmId, why);
        probe.onKept.forEach(Runnable::run);
        verdicts.kept(probe.tmId);
    }

    private void lose(Probe probe, String why) {
        probes.remove(probe.tmId);
        verdicts.lost(probe.tmId, why);
    }
}

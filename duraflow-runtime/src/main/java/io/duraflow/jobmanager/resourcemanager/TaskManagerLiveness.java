package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskManagerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * Whether the registered TaskManagers live: their heartbeats (and the memory figures they carry
 * for the cluster overview), and the suspicions that one died, settled by {@link
 * TaskManagerProbes}. A TaskManager is lost when its heartbeats stop for {@code
 * heartbeat.timeout}, or, much sooner, when a sign that it died (a broken connection, a refused
 * call, a task that could not reach it) is confirmed by pings that nobody answers.
 *
 * <p>Decides only: a TaskManager found dead is handed to {@code lose}, which ends its
 * registration (and tells this class, {@link #ended}); a probed TaskManager that is kept gets its
 * slots offered again through {@code slotsBack}. Told by the {@link ResourceManager} when a
 * registration begins ({@link #began}) and ends.
 *
 * <p>Main thread only (the JobManager's {@link Mailbox}); no locks. Pings run on the transport's
 * threads and their results come back through the main thread's {@link Mailbox#execute}.
 */
final class TaskManagerLiveness {
    /** What the last heartbeat of one TaskManager said, and when it came. */
    private static final class Heartbeats {
        long lastHeartbeatMs;
        long heapUsed;
        long peakHeapUsed;
        long networkBytesInUse;
        long networkBytesTotal;

        Heartbeats(long now) {
            this.lastHeartbeatMs = now;
        }
    }

    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final long heartbeatTimeoutMs;
    private final BiConsumer<String, String> lose;
    private final TaskManagerProbes probes;
    /** By TaskManager id, the registered ones, in the order they registered. */
    private final Map<String, Heartbeats> taskManagers = new LinkedHashMap<>();

    /**
     * @param lose ends a TaskManager's registration as lost, with the reason
     * @param slotsBack tells jobs waiting for slots that a probed TaskManager's slots are offered again
     */
    TaskManagerLiveness(Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs,
            TaskManagerProbes.Settings probeSettings, TaskManagerProbes.Pinger pinger, BiConsumer<String, String> lose,
            Runnable slotsBack) {
        this.mainThread = mainThread;
        this.clock = clock;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.lose = lose;
        this.probes = new TaskManagerProbes(mainThread, clock, probeSettings, pinger,
                new TaskManagerProbes.Verdicts() {
                    @Override
                    public void lost(String tmId, String why) {
                        lose.accept(tmId, why);
                    }

                    @Override
                    public void kept(String tmId) {
                        // Its slots were held back while it was probed.
                        slotsBack.run();
                    }
                });
    }

    /** A registration began: it counts as a heartbeat. */
    void began(String tmId) {
        taskManagers.put(tmId, new Heartbeats(clock.getAsLong()));
    }

    /** The TaskManager registered again in the same registration: it lives. */
    void renewed(String tmId) {
        Heartbeats tm = taskManagers.get(tmId);
        if (tm != null) {
            tm.lastHeartbeatMs = clock.getAsLong();
        }
    }

    /** The registration ended: its probe, if any, ends without a verdict. */
    void ended(String tmId) {
        probes.forget(tmId);
        taskManagers.remove(tmId);
    }

    /** Ends every probe and forgets every TaskManager: the leadership ends. */
    void close() {
        taskManagers.keySet().forEach(probes::forget);
        taskManagers.clear();
    }

    /**
     * A heartbeat: the TaskManager lives, and what it reports of its memory (heap, network) goes
     * into the cluster overview. Returns false when the TaskManager is unknown (it must register again).
     */
    boolean heartbeat(TaskManagerHeartbeat heartbeat) {
        Heartbeats tm = taskManagers.get(heartbeat.getTmId());
        if (tm == null) {
            return false;
        }
        tm.lastHeartbeatMs = clock.getAsLong();
        tm.heapUsed = heartbeat.getHeapUsedBytes();
        tm.peakHeapUsed = heartbeat.getPeakHeapUsedBytes();
        tm.networkBytesInUse = heartbeat.getNetworkBytesInUse();
        tm.networkBytesTotal = heartbeat.getNetworkBytesTotal();
        return true;
    }

    /** The memory figures of the TaskManager's last heartbeat, added to its overview. */
    TaskManagerInfo.Builder withMemoryFigures(String tmId, TaskManagerInfo.Builder info) {
        Heartbeats tm = taskManagers.get(tmId);
        if (tm == null) {
            return info;
        }
        return info.setHeapUsedBytes(tm.heapUsed).setPeakHeapUsedBytes(tm.peakHeapUsed)
                .setNetworkBytesInUse(tm.networkBytesInUse).setNetworkBytesTotal(tm.networkBytesTotal);
    }

    /** Loses TaskManagers whose last heartbeat is older than the timeout. */
    void checkHeartbeats() {
        long now = clock.getAsLong();
        List<String> expired = new ArrayList<>();
        taskManagers.forEach((tmId, tm) -> {
            if (now - tm.lastHeartbeatMs > heartbeatTimeoutMs) {
                expired.add(tmId);
            }
        });
        for (String tmId : expired) {
            lose.accept(tmId, "it missed heartbeats for " + heartbeatTimeoutMs + " ms");
        }
    }

    /**
     * A sign that the TaskManager may be gone: it is pinged at once, and lost if nobody answers.
     * Ignored for a TaskManager that is not registered.
     *
     * @param onKept run if the TaskManager is kept, or not registered (null: nothing)
     */
    void suspect(String tmId, String why, Runnable onKept) {
        mainThread.assertRunningInMailbox();
        if (taskManagers.containsKey(tmId)) {
            probes.suspect(tmId, why, onKept);
        } else if (onKept != null) {
            onKept.run();
        }
    }

    /**
     * A call found nobody listening at the TaskManager's address: it is probably gone, whatever
     * its last heartbeat said. With probes a suspicion ({@code onKept} runs if it is kept);
     * without them, as before them, the refusal is taken as the verdict, or every retry would go
     * to the dead TaskManager's free slots until its heartbeats time out.
     */
    void refusedConnection(String tmId, String why, Runnable onKept) {
        if (probes.enabled()) {
            suspect(tmId, why, onKept);
        } else {
            lose.accept(tmId, why);
        }
    }

    /** Whether the TaskManager is being probed now (a suspicion is being settled). */
    boolean isSuspected(String tmId) {
        return probes.isProbing(tmId);
    }

    /** Probes started so far. */
    long probesStarted() {
        return probes.probesStarted();
    }
}

package io.duraflow.ha;

import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** {@code high-availability.type: none}: the only JobManager leads from the start. */
final class StandaloneLeaderElection implements LeaderElection {
    private LeaderContender contender;
    private volatile String sessionId;
    private boolean closed;
    private final ScheduledExecutorService rejoins = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leader-rejoin");
        t.setDaemon(true);
        return t;
    });

    @Override
    public synchronized void start(LeaderContender contender) {
        this.contender = contender;
        grant();
    }

    private void grant() {
        sessionId = UUID.randomUUID().toString();
        contender.grantLeadership(sessionId);
    }

    @Override
    public void publish(String sessionId, String address, String restUrl) {}

    @Override
    public boolean stillLeads(String sessionId) {
        return sessionId.equals(this.sessionId);
    }

    @Override
    public synchronized void giveUpAndRejoin(String sessionId, long rejoinDelayMs) {
        if (sessionId == null || !sessionId.equals(this.sessionId)) {
            return;
        }
        this.sessionId = null;
        contender.revokeLeadership();
        if (rejoinDelayMs <= 0) {
            grant();
            return;
        }
        rejoins.schedule(() -> {
            synchronized (this) {
                if (!closed) {
                    grant();
                }
            }
        }, rejoinDelayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        closed = true;
        rejoins.shutdownNow();
    }
}

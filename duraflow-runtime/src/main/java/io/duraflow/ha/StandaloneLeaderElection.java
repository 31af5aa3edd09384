package io.duraflow.ha;

import java.util.UUID;

/** {@code high-availability.type: none}: the only JobManager leads from the start. */
final class StandaloneLeaderElection implements LeaderElection {
    private LeaderContender contender;
    private volatile String sessionId;

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
    public void publish(String sessionId, String address) {}

    @Override
    public boolean stillLeads(String sessionId) {
        return sessionId.equals(this.sessionId);
    }

    @Override
    public synchronized void giveUpAndRejoin(String sessionId) {
        if (sessionId == null || !sessionId.equals(this.sessionId)) {
            return;
        }
        contender.revokeLeadership();
        grant();
    }

    @Override
    public void close() {}
}

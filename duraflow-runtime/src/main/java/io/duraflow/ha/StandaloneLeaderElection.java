package io.duraflow.ha;

import java.util.UUID;

/** {@code high-availability.type: none}: the only JobManager leads from the start. */
final class StandaloneLeaderElection implements LeaderElection {
    private LeaderContender contender;
    private volatile String sessionId;

    @Override
    public void start(LeaderContender contender) {
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
    public void giveUpAndRejoin() {
        contender.revokeLeadership();
        grant();
    }

    @Override
    public void close() {}
}

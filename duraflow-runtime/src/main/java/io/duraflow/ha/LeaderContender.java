package io.duraflow.ha;

/** A JobManager taking part in leader election. Callbacks come from the election's thread. */
public interface LeaderContender {
    /** This process leads now, under a new session id (the fencing token). */
    void grantLeadership(String sessionId);

    /** This process no longer leads: stop acting on the cluster immediately. */
    void revokeLeadership();
}

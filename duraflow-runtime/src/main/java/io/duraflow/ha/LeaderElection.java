package io.duraflow.ha;

/** Leader election among JobManagers. */
public interface LeaderElection extends AutoCloseable {
    void start(LeaderContender contender) throws Exception;

    /** Publishes the leader's address so TaskManagers and clients find it. */
    default void publish(String sessionId, String address) throws Exception {
        publish(sessionId, address, "");
    }

    /**
     * Publishes the leader's address and where it serves its REST API ({@code http://host:port},
     * "" if it serves none), so TaskManagers, clients and standbys find it.
     */
    void publish(String sessionId, String address, String restUrl) throws Exception;

    /**
     * Checks with the coordination service (not a cached flag) that {@code sessionId} still
     * leads. Called right before every durable write, so a leader that was paused and lost its
     * leadership cannot write.
     */
    boolean stillLeads(String sessionId);

    /**
     * Leaves the election at once (for example after a failed durable write) and joins it again
     * after {@code rejoinDelayMs}, if {@code sessionId} still is the current leadership;
     * otherwise does nothing, so that a late failure of an earlier leadership cannot end a later
     * one. The delay lets the caller back off: a JobManager whose take-over keeps failing must
     * not win the election again in a tight loop.
     */
    void giveUpAndRejoin(String sessionId, long rejoinDelayMs) throws Exception;

    @Override
    void close() throws Exception;
}

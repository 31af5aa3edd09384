package io.duraflow.ha;

/**
 * The current leader JobManager: where it listens and its session id, the fencing token of
 * this leadership. TaskManagers accept requests only with the session id of the leader they
 * follow, so a deposed leader can change nothing on them.
 *
 * @param restUrl where the leader serves its REST API and web UI ({@code http://host:port}), ""
 *     if it serves none; standbys send REST clients there
 */
public record LeaderInfo(String address, String sessionId, String restUrl) {
    public LeaderInfo {
        restUrl = restUrl == null ? "" : restUrl;
    }

    public LeaderInfo(String address, String sessionId) {
        this(address, sessionId, "");
    }

    /** The same leader under another session id (a new leadership of the same process). */
    public LeaderInfo withSession(String newSessionId) {
        return new LeaderInfo(address, newSessionId, restUrl);
    }
}

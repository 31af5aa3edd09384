package io.duraflow.ha;

/**
 * The current leader JobManager: where it listens and its session id, the fencing token of
 * this leadership. TaskManagers accept requests only with the session id of the leader they
 * follow, so a deposed leader can change nothing on them.
 */
public record LeaderInfo(String address, String sessionId) {}

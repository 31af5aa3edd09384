package io.duraflow.ha;

import java.time.Duration;
import java.util.function.Consumer;

/** {@code high-availability.type: none}: the JobManager is at a configured address. */
final class StaticLeaderRetrieval implements LeaderRetrieval {
    private final LeaderInfo leader;

    StaticLeaderRetrieval(String address) {
        // The session id is learned from the JobManager when registering.
        this.leader = new LeaderInfo(address, "");
    }

    @Override
    public void start(Consumer<LeaderInfo> listener) {
        listener.accept(leader);
    }

    @Override
    public LeaderInfo awaitLeader(Duration timeout) {
        return leader;
    }

    @Override
    public void close() {}
}

package io.duraflow.simulation;

import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What ZooKeeper does for the cluster, in memory: the leader election with sessions, the
 * published leader that TaskManagers follow, and the per-job checkpoint id counters.
 *
 * <p>Each JobManager in the election has a session, kept alive while its process runs. A process
 * that is dead or frozen for {@code sessionTimeoutMs} loses its session: if it led, the next
 * contender in line is granted a new session ({@code s1}, {@code s2}, ...: the fencing tokens)
 * and the old leader is told it was revoked, which it hears when it thaws. A thawed JobManager
 * joins the election again with a new session. Calls from a process's own mailboxes ({@link
 * #stillLeads}, {@link #publish}) are synchronous: a frozen process makes none.
 */
final class SimZooKeeper {
    /** A JobManager taking part in the election. */
    interface Contender {
        SimProcess process();

        void grantLeadership(String sessionId);

        void revokeLeadership();
    }

    private final SimMailbox zk;
    private final long sessionTimeoutMs;
    private final List<Member> members = new ArrayList<>();
    private final List<Consumer<LeaderInfo>> followers = new ArrayList<>();
    private final Map<String, Long> checkpointIds = new HashMap<>();
    private final Trace trace;
    private int sessions;
    private Member leader;
    private String leaderSession;
    private LeaderInfo published;

    private static final class Member {
        final Contender contender;
        long lastContactMs;
        /** Not in the election until this time (a give-up with a rejoin delay). */
        long rejoinAtMs;
        boolean inElection = true;

        Member(Contender contender, long now) {
            this.contender = contender;
            this.lastContactMs = now;
        }
    }

    SimZooKeeper(SimScheduler scheduler, long sessionTimeoutMs, Trace trace) {
        this.zk = scheduler.mailbox("zookeeper", new SimProcess("zookeeper"));
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.trace = trace;
        zk.schedule(this::tick, 50);
    }

    void join(Contender contender) {
        members.add(new Member(contender, zk.now()));
        zk.execute(this::elect);
    }

    /** The session that leads now, or null. */
    String leaderSession() {
        return leaderSession;
    }

    Contender leader() {
        return leader == null ? null : leader.contender;
    }

    /** The number of a session id: s3 is 3. */
    static int sessionNumber(String sessionId) {
        return sessionId == null || sessionId.isEmpty() ? 0 : Integer.parseInt(sessionId.substring(1));
    }

    private void tick() {
        long now = zk.now();
        for (Member member : List.copyOf(members)) {
            SimProcess process = member.contender.process();
            if (process.running()) {
                member.lastContactMs = now;
                if (!member.inElection && now >= member.rejoinAtMs) {
                    member.inElection = true;
                }
            } else if (now - member.lastContactMs > sessionTimeoutMs) {
                expire(member);
            }
        }
        elect();
        zk.schedule(this::tick, 50);
    }

    /** The member's session expired: out of the election, until it runs again (then it rejoins). */
    private void expire(Member member) {
        if (!member.inElection && member != leader) {
            return;
        }
        member.inElection = false;
        member.rejoinAtMs = zk.now();
        if (!member.contender.process().alive()) {
            members.remove(member);
        }
        if (member == leader) {
            trace.add("zk: session " + leaderSession + " of " + member.contender.process().name() + " expired");
            endLeadership();
            member.contender.revokeLeadership();
        }
    }

    private void endLeadership() {
        leader = null;
        leaderSession = null;
    }

    private void elect() {
        if (leader != null) {
            return;
        }
        for (Member member : members) {
            if (member.inElection && member.contender.process().alive()) {
                leader = member;
                leaderSession = "s" + ++sessions;
                trace.add("zk: " + member.contender.process().name() + " leads as " + leaderSession);
                member.contender.grantLeadership(leaderSession);
                return;
            }
        }
    }

    boolean stillLeads(String sessionId) {
        return sessionId.equals(leaderSession);
    }

    /** The leader of {@code sessionId} publishes its address; the TaskManagers follow it. */
    void publish(String sessionId, String address) {
        if (!stillLeads(sessionId)) {
            throw new IllegalStateException("session " + sessionId + " does not lead; cannot publish");
        }
        published = new LeaderInfo(address, sessionId);
        trace.add("zk: published " + sessionId + " at " + address);
        for (Consumer<LeaderInfo> follower : List.copyOf(followers)) {
            LeaderInfo info = published;
            zk.execute(() -> follower.accept(info));
        }
    }

    /** Leaves the election if {@code sessionId} still leads, and joins again after {@code delayMs}. */
    void giveUpAndRejoin(String sessionId, long delayMs) {
        if (!stillLeads(sessionId)) {
            return;
        }
        Member member = leader;
        trace.add("zk: " + member.contender.process().name() + " gives up " + sessionId);
        endLeadership();
        member.inElection = false;
        member.rejoinAtMs = zk.now() + delayMs;
        member.contender.revokeLeadership();
        zk.execute(this::elect);
    }

    /** A TaskManager's view of the published leader. */
    LeaderRetrieval retrieval() {
        return new LeaderRetrieval() {
            private Consumer<LeaderInfo> listener;

            @Override
            public void start(Consumer<LeaderInfo> listener) {
                this.listener = listener;
                followers.add(listener);
                if (published != null) {
                    LeaderInfo info = published;
                    zk.execute(() -> listener.accept(info));
                }
            }

            @Override
            public LeaderInfo awaitLeader(Duration timeout) {
                return published;
            }

            @Override
            public void close() {
                followers.remove(listener);
            }
        };
    }

    /** The job's checkpoint id counter, shared by every leader as ZooKeeper's is. */
    CheckpointIdCounter checkpointIdCounter(String jobId) {
        return new CheckpointIdCounter() {
            @Override
            public long getAndIncrement() {
                long id = get();
                checkpointIds.put(jobId, id + 1);
                return id;
            }

            @Override
            public long get() {
                return checkpointIds.getOrDefault(jobId, 1L);
            }

            @Override
            public void continueFrom(long nextId) {
                checkpointIds.put(jobId, Math.max(get(), nextId));
            }

            @Override
            public void discard() {
                checkpointIds.remove(jobId);
            }
        };
    }
}

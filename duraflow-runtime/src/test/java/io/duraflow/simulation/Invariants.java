package io.duraflow.simulation;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What must hold after every step of a simulated run, whatever the seed and the faults:
 * <ol>
 *   <li>no exception escapes a mailbox, no handler fails with an internal error, and nothing is
 *       sent from a thread other than the simulation's;
 *   <li>a job whose result is in the job result store never starts a task again;
 *   <li>fencing: a TaskManager accepts a deployment only of the session of the leader it follows
 *       (or a newer one that it registered with), never of an older session than one it accepted;
 *   <li>a streaming subtask never has two running attempts on live TaskManagers, unless a leader
 *       has sent the older one its cancellation (see {@link #strictSingleAttempt});
 *   <li>checkpoint ids never go down across leaders: a leader triggers only ids above every id an
 *       earlier leader triggered.
 * </ol>
 * Rule 1 is checked by {@link #check}; the others as the events happen. The first violation
 * fails the run with the last lines of its trace. The job-specific ends (the right result, the
 * finished work kept) are checked by the tests.
 */
final class Invariants {
    private final SimCluster cluster;
    private final List<String> violations = new ArrayList<>();
    /** Per TaskManager id, the newest session it accepted a deployment of. */
    private final Map<String, Integer> acceptedSessions = new HashMap<>();
    /** Per job, per session number, the highest checkpoint id triggered. */
    private final Map<String, TreeMap<Integer, Long>> triggered = new HashMap<>();
    private final List<SimStreamTask> streamTasks = new ArrayList<>();
    private final Set<String> cancelled = new HashSet<>();
    private final Set<String> ended = new HashSet<>();
    private boolean strictSingleAttempt;
    /** Per job, every split some attempt read. */
    private final Map<String, Set<com.google.protobuf.ByteString>> splits = new HashMap<>();
    /** Every task start: "job v/s#a tm". */
    private final List<Started> started = new ArrayList<>();
    private final Map<String, java.util.TreeSet<Long>> completed = new HashMap<>();

    /** A task that started on a TaskManager. */
    record Started(String jobId, int vertex, int subtask, int attempt, String tmId, String session,
            long restoredCheckpointId) {}

    Invariants(SimCluster cluster) {
        this.cluster = cluster;
    }

    private void violated(String what) {
        violations.add(what);
        cluster.trace().add("VIOLATION " + what);
    }

    void check() {
        if (!cluster.scheduler().escapes().isEmpty()) {
            violated("escaped a mailbox: " + cluster.scheduler().escapes());
        }
        if (!cluster.internalErrors().isEmpty()) {
            violated("internal errors: " + cluster.internalErrors());
        }
        if (!violations.isEmpty()) {
            throw new AssertionError(violations.get(0) + "\n--- last lines of the trace:\n" + cluster.trace().tail(60));
        }
    }

    void taskCreated(SimTaskManager taskManager, TaskDeployment deployment) {
        AttemptId attempt = deployment.getAttempt();
        if (cluster.hasResult(attempt.getJobId())) {
            violated("job " + attempt.getJobId() + " has a result, yet " + Rpc.describe(attempt) + " starts on "
                    + taskManager.tmId());
        }
        started.add(new Started(attempt.getJobId(), attempt.getVertex(), attempt.getSubtask(), attempt.getAttempt(),
                taskManager.tmId(), deployment.getJmSessionId(),
                deployment.hasRestore() ? deployment.getRestore().getCheckpointId() : 0));
    }

    void deploymentAccepted(SimTaskManager taskManager, TaskDeployment deployment) {
        int session = SimZooKeeper.sessionNumber(deployment.getJmSessionId());
        int followed = SimZooKeeper.sessionNumber(taskManager.followedSession());
        int before = acceptedSessions.getOrDefault(taskManager.tmId(), 0);
        if (session < followed || session < before) {
            violated(taskManager.tmId() + " accepted " + Rpc.describe(deployment.getAttempt()) + " of session "
                    + deployment.getJmSessionId() + " while following s" + followed + " and having accepted s"
                    + before);
        }
        acceptedSessions.put(taskManager.tmId(), Math.max(before, session));
    }

    void streamTaskStarted(SimStreamTask task) {
        streamTasks.removeIf(t -> t.ended() || !t.taskManager().process().alive());
        for (SimStreamTask other : streamTasks) {
            AttemptId a = other.attempt();
            AttemptId b = task.attempt();
            if (a.getJobId().equals(b.getJobId()) && a.getVertex() == b.getVertex()
                    && a.getSubtask() == b.getSubtask()
                    && (strictSingleAttempt || !cancelled.contains(other.taskManager().tmId() + "/" + Rpc.describe(a)))) {
                violated("two running attempts of a streaming subtask: " + Rpc.describe(a) + " on "
                        + other.taskManager().tmId() + " and " + Rpc.describe(b) + " on " + task.taskManager().tmId());
            }
        }
        streamTasks.add(task);
    }

    /**
     * Rule 4 as strict as its words: no overlap at all. Off, an older attempt may still run while
     * the cancellation a leader sent it is on its way (a take-over that restores instead of
     * adopting cancels the kept tasks without waiting; see the test that shows it).
     */
    void strictSingleAttempt(boolean strict) {
        this.strictSingleAttempt = strict;
    }

    /** A task ended on its TaskManager (it reported, or tried to report, how). */
    void taskEnded(SimTaskManager taskManager, AttemptId attempt) {
        ended.add(taskManager.tmId() + "/" + Rpc.describe(attempt));
    }

    boolean hasEnded(String tmId, String jobId, int vertex, int subtask, int attempt) {
        return ended.contains(tmId + "/" + Rpc.describe(AttemptId.newBuilder().setJobId(jobId).setVertex(vertex)
                .setSubtask(subtask).setAttempt(attempt).build()));
    }

    /** A leader sent the TaskManager a cancellation of this attempt. */
    void cancelSent(String tmId, AttemptId attempt) {
        cancelled.add(tmId + "/" + Rpc.describe(attempt));
    }

    void checkpointTriggered(String jmSessionId, TriggerCheckpointRequest request) {
        String jobId = request.getAttempt().getJobId();
        int session = SimZooKeeper.sessionNumber(jmSessionId);
        long id = request.getCheckpointId();
        TreeMap<Integer, Long> bySession = triggered.computeIfAbsent(jobId, j -> new TreeMap<>());
        for (Map.Entry<Integer, Long> older : bySession.headMap(session).entrySet()) {
            if (id <= older.getValue()) {
                violated("checkpoint id went down: session s" + session + " triggers " + id + " of job " + jobId
                        + " after session s" + older.getKey() + " triggered " + older.getValue());
            }
        }
        bySession.merge(session, id, Math::max);
    }

    /** A task heard that a checkpoint completed (the first notification of each id counts). */
    void checkpointCompleted(String jobId, long checkpointId) {
        if (completed.computeIfAbsent(jobId, j -> new java.util.TreeSet<>()).add(checkpointId)) {
            cluster.trace().add("checkpoint " + checkpointId + " of " + jobId + " completed");
        }
    }

    /** The highest checkpoint id a task heard was completed, 0 if none. */
    long latestCompleted(String jobId) {
        java.util.TreeSet<Long> ids = completed.get(jobId);
        return ids == null || ids.isEmpty() ? 0 : ids.last();
    }

    int completedCheckpoints(String jobId) {
        return completed.getOrDefault(jobId, new java.util.TreeSet<>()).size();
    }

    void splitsRead(AttemptId attempt, List<com.google.protobuf.ByteString> read) {
        splits.computeIfAbsent(attempt.getJobId(), j -> new LinkedHashSet<>()).addAll(read);
    }

    Set<com.google.protobuf.ByteString> splits(String jobId) {
        return splits.getOrDefault(jobId, Set.of());
    }

    List<Started> started() {
        return started;
    }
}

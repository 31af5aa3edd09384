package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A leader change that costs no running work, the decisions: from a job's graph, the
 * state the new leader recovered (batch: the job event log; streaming: the completed-checkpoint
 * store), the tasks TaskManagers kept running and reported when they registered ({@link
 * ReportedTask}), and the TaskManagers known lost, which subtasks the new leader adopts as they
 * run, which stay finished and which run again. Pure, like {@link RecoveryPlanner}: no I/O, no
 * clock, the same input always gives the same plan.
 *
 * <p>The principle: a task is adopted only when the recovered state proves that it is the task
 * the new leader would have run, reading what the new leader keeps; anything else runs again as
 * without adoption, and a contradiction between the reports and the recovered state (or among the
 * reports) means that neither can be trusted to adopt anything: the whole job falls back to
 * recovery without adoption ({@link AdoptionPlan.Outcome#FALLBACK}).
 *
 * <h2>1. Reports</h2>
 * Reports of every registered TaskManager, lost ones included (what they said is still a fact
 * about the old leadership), are checked first; any of these is a <em>contradiction</em>, and the
 * plan is a fallback naming the first one found:
 * <ul>
 *   <li>a vertex the graph does not have, a subtask outside its vertex's known parallelism, or a
 *       reported parallelism other than the vertex's (another graph, or another layout);
 *   <li>batch facts for a streaming job or the other way round;
 *   <li>the same attempt of a subtask reported twice (an attempt is deployed once).
 * </ul>
 * Several attempts of one subtask are no contradiction: the old leader reset it and its cancel
 * of the older one was in flight at the crash. Only the current attempt (rules 2c, 3c) can be
 * adopted; the others are <em>stale</em> and cancelled. A task on a lost TaskManager is never
 * adopted and needs no cancel.
 *
 * <h2>2. Batch ({@link #planBatch})</h2>
 * <ol type="a">
 *   <li><b>Recovery first.</b> The event log is replayed and planned by {@link RecoveryPlanner}
 *       (its exceptions propagate: the caller restarts the job from scratch, as without adoption).
 *       Its restored executions are {@link TaskDecision.AlreadyFinished}.
 *   <li><b>Finished tasks agree with the log.</b> A report of the attempt the log records as
 *       finished must be FINISHED, on the TaskManager the log names, with the partitions (edge and
 *       id) the log names; anything else is a contradiction. Other attempts of a finished
 *       subtask are stale.
 *   <li><b>The current attempt.</b> A subtask the recovery runs again is adopted only through
 *       the report of the highest attempt the log knows for it. An older one is stale; a newer
 *       one comes from a reset the log lost (the writer is asynchronous), so the log cannot say
 *       what it reads: it runs again, as a finish of such an attempt carried by a registration is
 *       ignored (the dispatcher's {@code EarlierFinishes}, rule 6). If a newer attempt is
 *       reported besides the logged one, the old leader reset the logged one: it runs again too.
 *       A task of a vertex whose parallelism the log does not know gets no decision (the vertex
 *       is scheduled as usual) and is cancelled.
 *   <li><b>Adopted</b> iff that report comes from a live TaskManager, is RUNNING or FINISHED (it
 *       ended while no leader had decided on it; the TaskManager sends its final report, with its
 *       output, once adopted, and that output is not released as unused), its vertex's layout is
 *       in the log (or it is a source), and:
 *       <ul>
 *         <li>for every input edge, it reads exactly the partitions that the restored executions
 *             of the producer vertex recorded for that edge, on the TaskManagers the log names,
 *             each with the subpartition range the log's layout gives the subtask: it reads only
 *             output that the recovery keeps;
 *         <li>for a source: its node's enumerator can snapshot, no split moved for the subtask
 *             after the node's last recorded enumerator state, and the reader holds exactly the
 *             splits that state gives it (compared as byte strings, in any order): the restored
 *             enumerator then neither hands out a split the reader has nor keeps one it lacks.
 *       </ul>
 *       Its splits go to {@code adoptedSplits}, no longer to {@code splitsToReturn}.
 *   <li><b>Otherwise it runs again</b> ({@link TaskDecision.Restart}, with the first reason),
 *       as (highest attempt the log or any report named) + 1, so a new attempt never repeats one
 *       that a TaskManager may still run.
 * </ol>
 *
 * <h2>3. Streaming ({@link #planStreaming})</h2>
 * Let L be the latest completed checkpoint in the store and B what restarted tasks restore: L, or
 * the job's initial restore (a savepoint) while the store is empty, or 0 (empty state).
 * <ol type="a">
 *   <li><b>Contradictions with the store</b> (fallback, in addition to rule 1): a task told that a
 *       checkpoint above L completed (completion is announced only after the store has it), or a
 *       task restored from a checkpoint above L and other than the initial restore.
 *   <li><b>Regions.</b> Vertices joined by pipelined edges form a region; a region is adopted or
 *       restarts from B as a whole, because its tasks exchange records in flight that no
 *       checkpoint holds.
 *   <li><b>A region is adopted</b> iff every subtask of its vertices has a report on a live
 *       TaskManager; its current attempt (the highest reported, which must not be on a lost
 *       TaskManager: an older live one is stale) is RUNNING or FINISHED; all
 *       current attempts belong to one run of the job (tasks of two runs: the old leader was
 *       restarting the job); every RUNNING one holds the state of L (restored from L, or
 *       acknowledged L or later) when L exists; and no source reader received a split after B
 *       (the enumerator restored from B would hand it out again). Its RUNNING tasks are
 *       {@link TaskDecision.Adopt}, its FINISHED ones {@link TaskDecision.AlreadyFinished}; those
 *       not told that L completed are in {@code notifyCompleted}.
 *   <li><b>Otherwise the region restarts from B</b>: each of its subtasks is a {@link
 *       TaskDecision.Restart} with the region's first reason, as (highest attempt any report of
 *       the job named) + 1, so the job's attempts stay uniform, as a global restart makes them.
 * </ol>
 *
 * <h2>4. Cancels, attempts and notes</h2>
 * {@code toCancel}: every RUNNING report on a live TaskManager that is not adopted.
 * {@code highestAttempts}: per subtask, the highest attempt in the log or any report. On a
 * fallback every subtask that is not finished by the recovered state runs again (rule 2e or 3d
 * attempts) and every RUNNING report on a live TaskManager is cancelled. Notes: the outcome first,
 * then one line per subtask, then one per cancelled task.
 */
public final class AdoptionPlanner {

    private AdoptionPlanner() {}

    /**
     * Decides the adoption of a batch job's running tasks.
     *
     * @param graph               the job's graph, compiled as when it was first submitted
     * @param events              the job event log, in the order it was written
     * @param availablePartitions partition id -> id of a live TaskManager that still holds it
     * @param reports             every task that registered TaskManagers reported for this job
     * @param lostTaskManagers    TaskManagers known lost since they reported
     * @throws IllegalStateException if the event log does not fit the graph (see {@link RecoveryPlanner})
     */
    public static AdoptionPlan planBatch(JobGraph graph, List<JobEvent> events, Map<String, String> availablePartitions,
            Collection<ReportedTask> reports, Set<String> lostTaskManagers) {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(availablePartitions, "availablePartitions");
        Objects.requireNonNull(reports, "reports");
        Objects.requireNonNull(lostTaskManagers, "lostTaskManagers");
        JobEventReplay replayed = JobEventReplay.replay(graph, events);
        RecoveryPlan recovery = RecoveryPlanner.plan(replayed, availablePartitions);
        return new BatchAdoption(replayed, recovery, List.copyOf(reports), Set.copyOf(lostTaskManagers)).decide();
    }

    /**
     * The TaskManagers that, as the event log tells it, run the current attempt of some subtask
     * that has not finished: a new leader waits for them to register (and report what they kept)
     * before it plans, up to its wait for the previous TaskManagers.
     *
     * @throws IllegalStateException if the event log does not fit the graph
     */
    public static Set<String> taskManagersRunning(JobGraph graph, List<JobEvent> events) {
        return JobEventReplay.replay(graph, events).taskManagersRunningTasks();
    }

    /**
     * Decides the adoption of a streaming job's running tasks.
     *
     * @param graph            the job's graph
     * @param checkpoints      what the completed-checkpoint store holds
     * @param reports          every task that registered TaskManagers reported for this job
     * @param lostTaskManagers TaskManagers known lost since they reported
     */
    public static AdoptionPlan planStreaming(JobGraph graph, StreamingCheckpointFacts checkpoints,
            Collection<ReportedTask> reports, Set<String> lostTaskManagers) {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(checkpoints, "checkpoints");
        Objects.requireNonNull(reports, "reports");
        Objects.requireNonNull(lostTaskManagers, "lostTaskManagers");
        return new StreamingAdoption(graph, checkpoints, List.copyOf(reports), Set.copyOf(lostTaskManagers)).decide();
    }
}

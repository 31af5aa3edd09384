package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A leader change that costs no running work, the decisions: which reported running tasks a new
 * leader adopts, which stay finished and which run again, for batch ({@link #planBatch}) and
 * streaming ({@link #planStreaming}) jobs. Pure, like {@link RecoveryPlanner}. Its rules, numbered
 * as tests and code refer to them (1, 2a-2e, 3a-3d, 4): see
 * docs/design/leader-change-adoption.md#adoptionplanner.
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

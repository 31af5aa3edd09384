package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import io.duraflow.config.TaskManagerOptions;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;

/**
 * Streaming scheduling over pipelined exchanges: every task of the job runs at once, since a
 * consumer must read while its producers write. Vertices go out in topological order, so a
 * consumer's deployment already knows where its producers run. After a restart the whole job
 * waits for the restart delay and goes out together again.
 *
 * <p>All or nothing: while fewer slots are free than the waiting tasks need (those of one slot
 * sharing group and subtask index share one, see {@link TaskManagerActions#slotOf}), none is
 * deployed (a part of the job alone only fills its buffers, and would hold slots another job could
 * use); a freed or new slot schedules again. Until then {@link #waitingFor} says why.
 *
 * <p>Each consumer subtask reads one subpartition of every producer: subtask {@code i} of a
 * vertex reads subpartition {@code i} (ranges {@code 0, 1, ..., p}), and a keyed exchange routes a
 * record to the subtask that owns its key group.
 */
public final class PipelinedScheduling implements SchedulingStrategy {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PipelinedScheduling.class);

    private final ExecutionGraph executions;
    private final JobGraph graph;
    /** What the job waited for at the last try (not enough free slots), or null; logged when it changes. */
    private String waitingFor;

    /** One per consumer subtask: consumer subtask i reads subpartition i. */
    @Override
    public int subpartitions(int edgeId) {
        return executions.executions(graph.edge(edgeId).consumer()).length;
    }

    public PipelinedScheduling(ExecutionGraph executions) {
        this.executions = executions;
        this.graph = executions.jobGraph();
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.parallelismDecidedAtRuntime()) {
                throw new IllegalArgumentException("vertex '" + vertex.name() + "' of a streaming job has no fixed"
                        + " parallelism");
            }
            int[] bounds = new int[vertex.parallelism() + 1];
            for (int i = 0; i < bounds.length; i++) {
                bounds[i] = i;
            }
            executions.ranges(vertex.id(), bounds);
        }
    }

    @Override
    public String waitingFor() {
        return waitingFor;
    }

    @Override
    public long schedule(long nowMs, Deployer deployer) {
        long wakeUp = NOTHING_WAITING;
        for (Execution execution : executions.all()) {
            if (execution.state() == ExecutionState.CREATED && execution.notBeforeMs() > nowMs) {
                wakeUp = Math.min(wakeUp, execution.notBeforeMs());
            }
        }
        if (wakeUp != NOTHING_WAITING) {
            // Deploy together: a part of the job that runs without the rest only fills its buffers.
            return wakeUp;
        }
        java.util.List<Execution> waiting = new java.util.ArrayList<>();
        for (Execution execution : executions.all()) {
            if (execution.state() == ExecutionState.CREATED) {
                waiting.add(execution);
            }
        }
        int needed = waiting.isEmpty() ? 0 : deployer.slotsToTake(waiting);
        int free = deployer.freeSlots();
        if (needed > free) {
            // All or nothing: a part of the job would run without the rest and only fill its buffers.
            String why = "waits for " + needed + " free task slots to deploy its " + waiting.size() + " tasks together, "
                    + (free == 1 ? "1 is" : free + " are") + " free: add TaskManagers (or raise " + TaskManagerOptions.SLOTS.key()
                    + ") or lower the job's parallelism";
            if (!why.equals(waitingFor)) {
                LOG.warn("Job {} {}", executions.jobId(), why);
            }
            waitingFor = why;
            return OUT_OF_SLOTS;
        }
        waitingFor = null;
        for (JobVertex vertex : graph.vertices()) {
            for (Execution execution : executions.executions(vertex.id())) {
                if (execution.state() == ExecutionState.CREATED && !deployer.deploy(execution)) {
                    return OUT_OF_SLOTS;
                }
            }
        }
        return NOTHING_WAITING;
    }
}

package io.duraflow.jobmanager.jobmaster.execution;

import io.duraflow.config.ClusterOptions;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.SubpartitionSizes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The runtime side of a job graph: the executions of every vertex once its parallelism is
 * decided, the key-group ranges its tasks read, and which execution produced each partition
 * that is still usable.
 *
 * <p>Invariant: {@link #producerOf} knows exactly the partitions of current FINISHED attempts:
 * an execution finishes ({@link #finished}, {@link #restoreFinished}) and is reset ({@link
 * #reset}) through this class, which keeps the two in step.
 * Main thread only; no I/O.
 */
public final class ExecutionGraph {
    private final String jobId;
    private final JobGraph graph;
    /** Per vertex; null until its parallelism is decided. */
    private final List<Execution[]> executions = new ArrayList<>();
    /** Per vertex: task i reads subpartitions [ranges[i], ranges[i+1]); null until decided. */
    private final List<int[]> ranges = new ArrayList<>();
    private final Map<String, Execution> producerOfPartition = new HashMap<>();
    /**
     * Counts changes of what a job's status shows besides its rates and counters: execution
     * states, attempts and places, and the job's own state ({@link #changed}). Written on the main
     * thread, read by any (a status published for readers off the main thread is current while
     * the count is what it was when the status was built).
     */
    private final AtomicLong changes = new AtomicLong();

    public ExecutionGraph(String jobId, JobGraph graph) {
        this.jobId = jobId;
        this.graph = graph;
        for (JobVertex vertex : graph.vertices()) {
            executions.add(null);
            ranges.add(null);
            if (vertex.parallelism() > 0) {
                initializeVertex(vertex.id(), vertex.parallelism());
            }
        }
    }

    public JobGraph jobGraph() {
        return graph;
    }

    public String jobId() {
        return jobId;
    }

    /** Creates the executions of a vertex whose parallelism was just decided (or restored). */
    public void initializeVertex(int vertexId, int parallelism) {
        Execution[] subtasks = new Execution[parallelism];
        for (int i = 0; i < parallelism; i++) {
            subtasks[i] = new Execution(jobId, vertexId, i, this::changed);
        }
        executions.set(vertexId, subtasks);
        changed();
    }

    /** Something a job's status shows changed (an execution, or the job's state). */
    public void changed() {
        changes.incrementAndGet();
    }

    /** The changes so far; any thread. */
    public LongSupplier changeCount() {
        return changes::get;
    }

    /** The subtasks of a vertex, or null while its parallelism is not decided. */
    public Execution[] executions(int vertexId) {
        return executions.get(vertexId);
    }

    /** Range bounds of a vertex's tasks, or null while not decided. */
    public int[] ranges(int vertexId) {
        return ranges.get(vertexId);
    }

    public void ranges(int vertexId, int[] bounds) {
        ranges.set(vertexId, bounds);
    }

    /** The execution whose current attempt {@code attempt} is, or null if it is superseded or unknown. */
    public Execution current(AttemptId attempt) {
        if (attempt.getVertex() < 0 || attempt.getVertex() >= executions.size()) {
            return null;
        }
        Execution[] subtasks = executions.get(attempt.getVertex());
        if (subtasks == null || attempt.getSubtask() < 0 || attempt.getSubtask() >= subtasks.length) {
            return null;
        }
        Execution execution = subtasks[attempt.getSubtask()];
        return execution.attempt() == attempt.getAttempt() ? execution : null;
    }

    /** The current FINISHED attempt that wrote this partition, or null if there is none (any more). */
    public Execution producerOf(String partitionId) {
        return producerOfPartition.get(partitionId);
    }

    /** The execution's current attempt, now FINISHED, wrote these partitions and collected these results. */
    public void finished(Execution execution, List<SubpartitionSizes> outputs, List<CollectedResult> collected,
            long recordsIn, long recordsOut) {
        execution.finished(outputs, collected, recordsIn, recordsOut);
        outputsFinished(execution, outputs);
    }

    /** Recovery: see {@link Execution#restoreFinished}; its partitions are where they were written. */
    public void restoreFinished(Execution execution, int attempt, String tmId, String tmAddress,
            List<SubpartitionSizes> outputs, List<CollectedResult> collected, long recordsIn, long recordsOut) {
        execution.restoreFinished(attempt, tmId, tmAddress, outputs, collected, recordsIn, recordsOut);
        outputsFinished(execution, outputs);
    }

    private void outputsFinished(Execution execution, List<SubpartitionSizes> outputs) {
        for (SubpartitionSizes output : outputs) {
            producerOfPartition.put(output.getPartitionId(), execution);
        }
    }

    /**
     * Replaces the execution's attempt with a new one (see {@link Execution#reset}); the old
     * attempt's partitions are no longer anyone's input.
     */
    public void reset(Execution execution, long notBeforeMs, String reason) {
        for (int edgeId : graph.vertex(execution.vertex()).outputs()) {
            producerOfPartition.remove(execution.partitionId(edgeId));
        }
        execution.reset(notBeforeMs, reason);
    }

    /** Every producer of every input of the vertex has finished. */
    public boolean inputsFinished(JobVertex vertex) {
        for (int edgeId : vertex.inputs()) {
            Execution[] producers = executions.get(graph.edge(edgeId).producer());
            if (producers == null) {
                return false;
            }
            for (Execution producer : producers) {
                if (producer.state() != ExecutionState.FINISHED) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Every execution of every vertex has finished (so every parallelism is decided). */
    public boolean allFinished() {
        for (Execution[] subtasks : executions) {
            if (subtasks == null) {
                return false;
            }
            for (Execution execution : subtasks) {
                if (execution.state() != ExecutionState.FINISHED) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Every execution of the vertices whose parallelism is decided, in vertex and subtask order. */
    public List<Execution> all() {
        List<Execution> all = new ArrayList<>();
        for (Execution[] subtasks : executions) {
            if (subtasks != null) {
                all.addAll(List.of(subtasks));
            }
        }
        return all;
    }

    /** Executions that hold a slot (deploying, running or cancelling). */
    public List<Execution> active() {
        return all().stream().filter(e -> e.state().isActive()).toList();
    }

    /** Executions that hold a slot on this TaskManager. */
    public List<Execution> activeOn(String tmId) {
        return all().stream().filter(e -> e.state().isActive() && tmId.equals(e.tmId())).toList();
    }

    /** Collected results of finished sinks, by vertex and subtask order. */
    public List<CollectedResult> collected() {
        List<CollectedResult> results = new ArrayList<>();
        for (Execution execution : all()) {
            results.addAll(execution.collected());
        }
        return results;
    }

    /**
     * The limit on collected results is the job's ({@code collect.max-bytes}): each subtask stops
     * at it on its own, but together they may pass it.
     *
     * @return the one-line cause to fail the job with if the current attempts collected more
     *         than {@code maxBytes}, else null
     */
    public String checkCollectedBytes(long maxBytes) {
        long bytes = collectedBytes();
        if (bytes <= maxBytes) {
            return null;
        }
        String option = ClusterOptions.COLLECT_MAX_BYTES.key();
        return "the job collected " + bytes + " bytes, more than " + option + " (" + maxBytes + " bytes) allows;"
                + " raise " + option + " or write the result to a sink";
    }

    /** Bytes collected by the current attempts (what the job's result will hold). */
    public long collectedBytes() {
        long bytes = 0;
        for (Execution execution : all()) {
            for (CollectedResult result : execution.collected()) {
                bytes += result.getData().size();
            }
        }
        return bytes;
    }
}

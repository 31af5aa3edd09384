package io.duraflow.jobmanager.jobmaster.execution;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.SubpartitionSizes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One subtask of a vertex and its current attempt. Main thread only. */
public final class Execution {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class);

    private final String jobId;
    private final int vertex;
    private final int subtask;
    private int attempt;
    private ExecutionState state = ExecutionState.CREATED;
    private String tmId;
    private String tmAddress;
    private long notBeforeMs;
    private final Map<Integer, SubpartitionSizes> outputs = new HashMap<>();
    private List<CollectedResult> collected = List.of();
    private long recordsIn;
    private long recordsOut;
    private int attemptsStarted;
    /** What a take-over from an earlier leader made of this subtask; never changes after. */
    private Recovery recovery = Recovery.NONE;

    /** What a new leader made of a subtask when it took its job over (batch job recovery). */
    public enum Recovery {
        /** No take-over, or the subtask had never run under an earlier leader. */
        NONE,
        /** Finished under an earlier leader with its output still there: not run again. */
        KEPT,
        /** Ran or started under an earlier leader and runs again, with a higher attempt number. */
        RUN_AGAIN,
        /** Was running under an earlier leader and went on running: this leader adopted it. */
        ADOPTED
    }
    /** The attempt {@link #eventSequence} counts for, and the last sequence number it gave. */
    private int eventSequenceAttempt = -1;
    private long eventSequence;

    /** Told of every change of state, attempt or TaskManager (the status a query shows changed). */
    private final Runnable changed;

    public Execution(String jobId, int vertex, int subtask) {
        this(jobId, vertex, subtask, () -> {});
    }

    public Execution(String jobId, int vertex, int subtask, Runnable changed) {
        this.jobId = jobId;
        this.vertex = vertex;
        this.subtask = subtask;
        this.changed = changed;
    }

    /** The one place where the state changes: checks the move against {@link ExecutionState}. */
    public void transition(ExecutionState target, String reason) {
        if (!state.canMoveTo(target)) {
            throw new IllegalStateException("execution " + this + " cannot go from " + state + " to " + target
                    + " (" + reason + ")");
        }
        LOG.debug("{}: {} -> {} ({})", this, state, target, reason);
        if (target == ExecutionState.DEPLOYING) {
            attemptsStarted++;
        }
        state = target;
        changed.run();
    }

    /** Replaces the attempt with a new one in CREATED that may start at {@code notBeforeMs}. */
    void reset(long notBeforeMs, String reason) {
        if (state.isActive()) {
            throw new IllegalStateException("execution " + this + " is still " + state + "; it cannot be reset ("
                    + reason + ")");
        }
        LOG.info("{} ({}) will run again as attempt {}: {}", this, state, attempt + 1, reason);
        attempt++;
        state = ExecutionState.CREATED;
        changed.run();
        tmId = null;
        tmAddress = null;
        outputs.clear();
        collected = List.of();
        recordsIn = 0;
        recordsOut = 0;
        this.notBeforeMs = notBeforeMs;
    }

    /**
     * Recovery: this subtask's attempt {@code attempt} finished under an earlier leader and its
     * output is still there, so it is FINISHED without running again.
     */
    void restoreFinished(int finishedAttempt, String onTmId, String onTmAddress, List<SubpartitionSizes> outputSizes,
            List<CollectedResult> results, long in, long out) {
        if (state != ExecutionState.CREATED || attempt != 0) {
            throw new IllegalStateException("execution " + this + " is " + state + "; only a new one can be restored");
        }
        LOG.info("{} restored as finished attempt {} on {}", this, finishedAttempt, onTmId);
        attempt = finishedAttempt;
        tmId = onTmId;
        tmAddress = onTmAddress;
        state = ExecutionState.FINISHED;
        recovery = Recovery.KEPT;
        changed.run();
        finished(outputSizes, results, in, out);
    }

    /**
     * Adoption: this subtask's attempt {@code runningAttempt} kept running on {@code onTmId}
     * through the leader change; it is RUNNING there without a deployment.
     */
    public void adoptRunning(int runningAttempt, String onTmId, String onTmAddress) {
        if (state != ExecutionState.CREATED) {
            throw new IllegalStateException("execution " + this + " is " + state + "; only a new one can be adopted");
        }
        LOG.info("{} adopted as running attempt {} on {}", this, runningAttempt, onTmId);
        attempt = runningAttempt;
        tmId = onTmId;
        tmAddress = onTmAddress;
        state = ExecutionState.RUNNING;
        recovery = Recovery.ADOPTED;
        changed.run();
    }

    /** Recovery: the subtask runs again with this attempt number (above every earlier one). */
    public void restoreAttempt(int nextAttempt) {
        if (state != ExecutionState.CREATED) {
            throw new IllegalStateException("execution " + this + " is " + state + "; cannot renumber it");
        }
        attempt = nextAttempt;
        recovery = nextAttempt > 0 ? Recovery.RUN_AGAIN : Recovery.NONE;
        changed.run();
    }

    public void assign(String tmId, String tmAddress) {
        this.tmId = tmId;
        this.tmAddress = tmAddress;
    }

    void finished(List<SubpartitionSizes> outputSizes, List<CollectedResult> results, long in, long out) {
        for (SubpartitionSizes sizes : outputSizes) {
            outputs.put(sizes.getEdgeId(), sizes);
        }
        collected = List.copyOf(results);
        recordsIn = in;
        recordsOut = out;
    }

    public String partitionId(int edge) {
        return jobId + "-v" + vertex + "-s" + subtask + "-a" + attempt + "-e" + edge;
    }

    /**
     * The sequence number of the next operator event sent to the current attempt: 1, 2, ... per
     * attempt, so the task applies them in the order they were sent.
     */
    public long nextOperatorEventSequence() {
        if (eventSequenceAttempt != attempt) {
            eventSequenceAttempt = attempt;
            eventSequence = 0;
        }
        return ++eventSequence;
    }

    public AttemptId attemptId() {
        return AttemptId.newBuilder().setJobId(jobId).setVertex(vertex).setSubtask(subtask).setAttempt(attempt).build();
    }

    public int vertex() {
        return vertex;
    }

    public int subtask() {
        return subtask;
    }

    public int attempt() {
        return attempt;
    }

    public ExecutionState state() {
        return state;
    }

    public String tmId() {
        return tmId;
    }

    public String tmAddress() {
        return tmAddress;
    }

    public long notBeforeMs() {
        return notBeforeMs;
    }

    public SubpartitionSizes output(int edge) {
        return outputs.get(edge);
    }

    public List<CollectedResult> collected() {
        return collected;
    }

    public long recordsIn() {
        return recordsIn;
    }

    public long recordsOut() {
        return recordsOut;
    }

    public Recovery recovery() {
        return recovery;
    }

    /** The finished attempt's output, one entry per outgoing edge; empty unless FINISHED. */
    public java.util.Collection<SubpartitionSizes> outputs() {
        return java.util.Collections.unmodifiableCollection(outputs.values());
    }

    public int attemptsStarted() {
        return attemptsStarted;
    }

    @Override
    public String toString() {
        return jobId + "/v" + vertex + "/" + subtask + "#" + attempt;
    }
}

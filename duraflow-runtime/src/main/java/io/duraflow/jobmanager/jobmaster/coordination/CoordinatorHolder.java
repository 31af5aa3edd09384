package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.Operation;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.WatermarkAlignment;
import io.duraflow.util.Futures;
import io.duraflow.mailbox.Mailbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator coordinators of one job, by node id: creates and starts them, routes operator
 * events to them, tells them of subtask resets, and closes them. Records split movements in the
 * job event log, and the enumerator's state before a source task's finish.
 *
 * <p>Threading: main thread only, so no field needs a lock, a volatile or an atomic. The one thing
 * that runs elsewhere is the coordinators' {@link OperatorCoordinator.Start start} ({@link
 * #startAsync}: a source's enumerator lists its input there), which touches none of their state:
 * it is handed over in the mail that ends it, or, if it never is, discarded by the thread that
 * owns it then.
 */
public final class CoordinatorHolder {
    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorHolder.class);

    private final String jobId;
    private final JobGraph graph;
    private final ExecutionGraph executions;
    private final Supplier<JobEventLog> eventLog;
    private final Map<Integer, OperatorCoordinator> coordinators = new LinkedHashMap<>();
    /** Source nodes whose splits changed hands since their enumerator's state was last logged. */
    private final Set<Integer> splitsMovedSinceState = new HashSet<>();
    /**
     * The coordinators' start ({@link #startAsync}) from when it is made until it is handed over
     * ({@link #goLive}) or the coordinators are closed; completes on the thread that ran it.
     */
    private CompletableFuture<List<OperatorCoordinator.Start>> starting;

    /** Where sources' periodic enumerator work hands its results back, and who hears of a handler's failure. */
    private final Mailbox mainThreadExecutor;
    private final Consumer<Throwable> asyncFailed;
    private final TaskManagerGateways gateways;
    /** The vertex each source heads, by the source's node id. */
    private final Map<Integer, Integer> vertexOfSource = new HashMap<>();
    /** The watermarks the readers of aligned sources reported; rebuilt from reports after any restart. */
    private final WatermarkAlignmentGroups alignment;

    public CoordinatorHolder(ExecutionGraph executions, Supplier<JobEventLog> eventLog, TaskManagerGateways gateways) {
        this(executions, eventLog, gateways, null, error -> { });
    }

    /**
     * @param mainThread where results of the enumerators' periodic work come back (null: sources
     *     may not ask for any)
     * @param asyncFailed told on the main thread when handling such a result threw
     */
    public CoordinatorHolder(ExecutionGraph executions, Supplier<JobEventLog> eventLog, TaskManagerGateways gateways,
            Mailbox mainThread, Consumer<Throwable> asyncFailed) {
        this.mainThreadExecutor = mainThread;
        this.asyncFailed = asyncFailed;
        this.jobId = executions.jobId();
        this.graph = executions.jobGraph();
        this.executions = executions;
        this.eventLog = eventLog;
        this.gateways = gateways;
        this.alignment = WatermarkAlignmentGroups.of(graph);
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().operation() instanceof Operation.SourceOp op) {
                int vertexId = vertex.id();
                int nodeId = vertex.head().id();
                vertexOfSource.put(nodeId, vertexId);
                coordinators.put(nodeId, new SourceCoordinator(vertex.head().name(), op.source(),
                        vertex.parallelism(), subtasks(vertexId, nodeId, gateways), listener(vertexId, nodeId)));
            }
        }
    }

    /** What a coordinator sees of the subtasks: only a RUNNING attempt gets events. */
    private SourceCoordinator.SubtaskGateway subtasks(int vertexId, int nodeId, TaskManagerGateways gateways) {
        return new SourceCoordinator.SubtaskGateway() {
            @Override
            public boolean isRunning(int subtask) {
                return executions.executions(vertexId)[subtask].state() == ExecutionState.RUNNING;
            }

            @Override
            public boolean hasFinished(int subtask) {
                return executions.executions(vertexId)[subtask].state() == ExecutionState.FINISHED;
            }

            @Override
            public void send(int subtask, OperatorEvent event) {
                Execution execution = executions.executions(vertexId)[subtask];
                gateways.sendOperatorEvent(execution.tmId(), execution.attemptId(), nodeId,
                        execution.nextOperatorEventSequence(), event);
            }
        };
    }

    private SourceCoordinator.AssignmentListener listener(int vertexId, int nodeId) {
        return new SourceCoordinator.AssignmentListener() {
            @Override
            public void assigned(int subtask, List<byte[]> splits) {
                eventLog.get().splitsAssigned(nodeId, subtask, executions.executions(vertexId)[subtask].attempt(),
                        splits);
                splitsMovedSinceState.add(nodeId);
                logStateAfterAssignment(nodeId);
            }

            @Override
            public void returned(int subtask, int count) {
                eventLog.get().splitsReturned(nodeId, subtask, count);
                splitsMovedSinceState.add(nodeId);
            }
        };
    }

    /**
     * Starts every coordinator on {@code executor}, so that a slow input listing does not stall
     * the main thread, and completes on {@code mainThread}, where the coordinators then go live
     * (deliver). Fails with a one-line message if the start takes longer than {@code timeout};
     * the coordinators are then closed once their start returns.
     */
    public CompletableFuture<Void> startAsync(Executor executor, Executor mainThread, Duration timeout) {
        List<OperatorCoordinator> toStart = List.copyOf(coordinators.values());
        if (mainThreadExecutor != null) {
            // The enumerators' periodic work (directory listings) is user code too: on the same executor.
            for (OperatorCoordinator coordinator : toStart) {
                if (coordinator instanceof SourceCoordinator source) {
                    source.async(new SourceCoordinator.AsyncServices(mainThreadExecutor, executor, asyncFailed));
                }
            }
        }
        List<OperatorCoordinator.Start> starts = new ArrayList<>();
        for (OperatorCoordinator coordinator : toStart) {
            starts.add(coordinator.start());
        }
        CompletableFuture<List<OperatorCoordinator.Start>> started = CompletableFuture.supplyAsync(() -> {
            try {
                for (OperatorCoordinator.Start start : starts) {
                    start.run();
                }
            } catch (Exception e) {
                // Never handed over: what the starts made so far is closed here, where it was made.
                discardQuietly(starts);
                throw new CompletionException(e);
            }
            return starts;
        }, executor);
        starting = started;
        CompletableFuture<List<OperatorCoordinator.Start>> limited = new CompletableFuture<>();
        started.whenComplete((done, error) -> {
            if (error == null) {
                limited.complete(done);
            } else {
                limited.completeExceptionally(Futures.unwrap(error));
            }
        });
        limited.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return limited.handleAsync((done, error) -> {
            if (error instanceof TimeoutException) {
                throw new CompletionException(new TimeoutException("starting the split enumerators (listing the"
                        + " sources' input) took longer than " + timeout.toMillis() + " ms; check that the input is"
                        + " reachable"));
            }
            if (error != null) {
                throw error instanceof CompletionException ce ? ce : new CompletionException(error);
            }
            goLive(started, done);
            return null;
        }, mainThread);
    }

    /**
     * Back on the main thread after the coordinators started: their starts are handed over and
     * they deliver from now on; unless they were closed meanwhile ({@link #closeAll} discards the
     * starts then).
     */
    private void goLive(CompletableFuture<List<OperatorCoordinator.Start>> started,
            List<OperatorCoordinator.Start> starts) {
        if (starting != started) {
            return;
        }
        starting = null;
        for (OperatorCoordinator.Start start : starts) {
            start.handOver();
        }
    }

    public OperatorCoordinator get(int nodeId) {
        return coordinators.get(nodeId);
    }

    /** The source coordinator of a node, or null. */
    public SourceCoordinator source(int nodeId) {
        return coordinators.get(nodeId) instanceof SourceCoordinator source ? source : null;
    }

    /**
     * Routes an event from a subtask's operator; throws what the coordinator throws. A reader's
     * watermark report for alignment is answered here, across sources, with its group's minimum.
     */
    public void handleEvent(int nodeId, int subtask, OperatorEvent event) throws Exception {
        OperatorCoordinator coordinator = coordinators.get(nodeId);
        if (coordinator == null) {
            throw new IllegalArgumentException("operator event for node " + nodeId + " which has no coordinator");
        }
        if (event.hasReportedWatermark()) {
            announceAlignment(nodeId, subtask, event.getReportedWatermark().getWatermark());
        } else {
            coordinator.handleEventFromOperator(subtask, event);
        }
    }

    /**
     * Records the reader's watermark and answers with its group's minimum, unordered (sequence 0):
     * announcements carry no split, and a late one is corrected by the next.
     */
    private void announceAlignment(int nodeId, int subtask, long watermark) {
        long minimum = alignment.report(nodeId, subtask, watermark);
        Execution execution = executions.executions(vertexOfSource.get(nodeId))[subtask];
        if (execution.state() == ExecutionState.RUNNING) {
            gateways.sendOperatorEvent(execution.tmId(), execution.attemptId(), nodeId, 0, OperatorEvent.newBuilder()
                    .setWatermarkAlignment(WatermarkAlignment.newBuilder().setGroupMinWatermark(minimum)).build());
        }
    }

    /** A subtask of a vertex was replaced by a new attempt: what the old one was given is handed out again. */
    public void subtaskReset(int vertexId, int subtask) throws Exception {
        int nodeId = graph.vertex(vertexId).head().id();
        alignment.forget(nodeId, subtask);
        OperatorCoordinator coordinator = coordinators.get(nodeId);
        if (coordinator != null) {
            coordinator.subtaskReset(subtask);
        }
    }

    /** A subtask of a vertex finished: if it is an aligned reader, it holds its group back no more. */
    public void subtaskFinished(int vertexId, int subtask) {
        alignment.forget(graph.vertex(vertexId).head().id(), subtask);
    }

    /** A subtask of a vertex runs (its TaskManager confirmed it): what waits for it is delivered. */
    public void subtaskRunning(int vertexId, int subtask) throws Exception {
        SourceCoordinator source = source(graph.vertex(vertexId).head().id());
        if (source != null) {
            source.subtaskRunning(subtask);
        }
    }

    /** Records the split assignments not recorded yet of every coordinator: the job starts. */
    public void reportAssignments() throws Exception {
        for (OperatorCoordinator coordinator : coordinators.values()) {
            if (coordinator instanceof SourceCoordinator source) {
                source.reportAssignments();
            }
        }
    }

    /** Records the split assignments of a vertex's coordinator not recorded yet (after a reset is). */
    public void reportAssignments(int vertexId) throws Exception {
        SourceCoordinator source = source(graph.vertex(vertexId).head().id());
        if (source != null) {
            source.reportAssignments();
        }
    }

    /**
     * Largest enumerator state logged after each assignment. Such a state makes the splits a
     * running reader holds part of the logged enumerator state, which is what lets a new leader
     * adopt that reader; a larger state is logged only at finishes, so that a log does
     * not grow with the square of a big source's split count.
     */
    static final int MAX_STATE_AFTER_ASSIGNMENT_BYTES = 64 * 1024;

    /** Source nodes whose state was once too large to log after every assignment. */
    private final java.util.Set<Integer> stateTooLargeAfterAssignment = new java.util.HashSet<>();

    private void logStateAfterAssignment(int nodeId) {
        JobEventLog log = eventLog.get();
        if (log == JobEventLog.NONE || stateTooLargeAfterAssignment.contains(nodeId)
                || !(coordinators.get(nodeId) instanceof SourceCoordinator source) || !source.supportsBatchSnapshot()) {
            return;
        }
        try {
            byte[] state = source.snapshot(-1);
            if (state.length > MAX_STATE_AFTER_ASSIGNMENT_BYTES) {
                stateTooLargeAfterAssignment.add(nodeId);
                return;
            }
            log.coordinatorState(nodeId, state);
            splitsMovedSinceState.remove(nodeId);
        } catch (Exception e) {
            LOG.debug("Job {}: cannot snapshot the split enumerator of node {} after an assignment: {}", jobId, nodeId,
                    e.toString());
        }
    }

    /**
     * A source subtask finished: if splits changed hands since its enumerator's state was last
     * logged, log the state now, so that replay sees this finish with an enumerator state as new
     * as its splits. Once per finish rather than once per split: the state holds every split left.
     */
    public void logStateBeforeFinish(Execution execution) {
        JobEventLog log = eventLog.get();
        if (log == JobEventLog.NONE) {
            return;
        }
        int nodeId = graph.vertex(execution.vertex()).head().id();
        if (!splitsMovedSinceState.remove(nodeId) || !(coordinators.get(nodeId) instanceof SourceCoordinator source)) {
            return;
        }
        try {
            log.coordinatorState(nodeId, source.supportsBatchSnapshot() ? source.snapshot(-1) : null);
        } catch (Exception e) {
            // Only recovery needs the state, and recording is best effort by design (a failing
            // event store also only stops recording): without it, a recovery runs this finish
            // again instead of keeping it. The job's own result does not depend on it.
            LOG.warn("Job {}: cannot snapshot the split enumerator of node {}; a recovery will not keep this"
                    + " finish: {}", jobId, nodeId, e.toString());
            splitsMovedSinceState.add(nodeId);
        }
    }

    /**
     * Streaming checkpoint: every source coordinator's snapshot, by its operator's uid, taken on
     * the main thread where its enumerator runs; throws what an enumerator throws.
     */
    public Map<String, byte[]> snapshotForCheckpoint(long checkpointId) throws Exception {
        // Every coordinator is asked before any snapshots: one that says "not now" costs no snapshot work.
        for (Map.Entry<Integer, OperatorCoordinator> entry : coordinators.entrySet()) {
            io.duraflow.api.checkpoint.SnapshotAvailability answer = entry.getValue().snapshotAvailability(checkpointId);
            if (answer == null) {
                throw new IllegalStateException("the split enumerator of " + uidOf(entry.getKey()) + " answered null"
                        + " to isSnapshotAvailable(" + checkpointId + "); return SnapshotAvailability.available()");
            }
            if (!answer.isAvailable()) {
                throw new io.duraflow.checkpoint.SnapshotDeclinedException("split enumerator of "
                        + uidOf(entry.getKey()), answer);
            }
        }
        Map<String, byte[]> states = new LinkedHashMap<>();
        for (Map.Entry<Integer, OperatorCoordinator> entry : coordinators.entrySet()) {
            states.put(uidOf(entry.getKey()), entry.getValue().snapshot(checkpointId));
        }
        return states;
    }

    /**
     * Streaming: checkpoint {@code checkpointId} completed; every enumerator hears of it. One that
     * throws is reported like a failing periodic handler (the job fails over).
     */
    public void notifyCheckpointComplete(long checkpointId) {
        for (OperatorCoordinator coordinator : coordinators.values()) {
            if (coordinator instanceof SourceCoordinator source) {
                try {
                    source.notifyCheckpointComplete(checkpointId);
                } catch (Exception | LinkageError e) {
                    asyncFailed.accept(e);
                    return;
                }
            }
        }
    }

    /**
     * Streaming restart: every source coordinator goes back to its enumerator's state in the
     * checkpoint (by its operator's uid), or, without one, to a new enumerator that hands every
     * split out again.
     *
     * @param checkpointId the restored checkpoint, or 0 for none
     * @param states the coordinators' states in that checkpoint, by uid
     */
    public void resetForRestart(long checkpointId, Map<String, byte[]> states) throws Exception {
        alignment.forgetAll(); // not checkpointed: the restarted readers report again
        for (Map.Entry<Integer, OperatorCoordinator> entry : coordinators.entrySet()) {
            byte[] state = states.get(uidOf(entry.getKey()));
            if (state != null) {
                entry.getValue().resetToSnapshot(checkpointId, state);
            } else if (entry.getValue() instanceof SourceCoordinator source) {
                source.resetToInitial();
            }
        }
    }

    private String uidOf(int nodeId) {
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().id() == nodeId) {
                return graph.uid(vertex.head());
            }
        }
        throw new IllegalStateException("coordinator of node " + nodeId + " heads no vertex");
    }

    /**
     * Closes every coordinator; failures are logged (the job has ended or left this leader). A
     * start that was not handed over holds what the coordinators would have closed (their
     * enumerators): it is discarded once it ends, by the thread that ran it if it still runs, else
     * here. The coordinators themselves hold nothing of it, so closing them never races it.
     */
    public void closeAll() {
        List<OperatorCoordinator> toClose = List.copyOf(coordinators.values());
        coordinators.clear();
        CompletableFuture<List<OperatorCoordinator.Start>> notHandedOver = starting;
        starting = null;
        if (notHandedOver != null) {
            notHandedOver.whenComplete((starts, error) -> {
                if (starts != null) {
                    discardQuietly(starts);
                }
            });
        }
        for (OperatorCoordinator coordinator : toClose) {
            try {
                coordinator.close();
            } catch (Exception e) {
                LOG.warn("Job {}: closing a coordinator failed", jobId, e);
            }
        }
    }

    /** Closes what starts that are never handed over made; on the thread that owns them. */
    private void discardQuietly(List<OperatorCoordinator.Start> starts) {
        for (OperatorCoordinator.Start start : starts) {
            try {
                start.discard();
            } catch (Exception e) {
                LOG.warn("Job {}: closing a coordinator failed", jobId, e);
            }
        }
    }
}

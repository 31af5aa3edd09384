package io.duraflow.jobmanager.scheduler;

import io.duraflow.jobmanager.Scheduler;
import io.duraflow.jobmanager.SlotPool;
import io.duraflow.jobmanager.TaskManagerGateways;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.plan.Operation;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch job: schedules each vertex when all its inputs are finished (deciding its
 * parallelism from their bytes if the user did not), deploys tasks into free slots, and on a
 * failure restarts only the failed task and the producers of partitions that are gone.
 *
 * <p>Main thread only. Time comes from the injected clock and delays from the injected
 * scheduler, so tests drive it step by step.
 */
public final class JobMaster {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    /** Told once when the job reaches FINISHED, FAILED or CANCELED. */
    public interface TerminationListener {
        void jobTerminated(JobMaster job);
    }

    private final String jobId;
    private final String jobClass;
    private final Map<String, String> params;
    private final Map<String, String> config;
    private final JobGraph graph;
    private final JobSettings settings;
    private final String sessionId;
    private final SlotPool slots;
    private final TaskManagerGateways gateways;
    private final Scheduler scheduler;
    private final LongSupplier clock;
    private final TerminationListener listener;
    private final List<Execution[]> executions = new ArrayList<>();
    /** Per vertex: task i reads subpartitions [ranges[i], ranges[i+1]); null until decided. */
    private final List<int[]> ranges = new ArrayList<>();
    private final Map<Integer, OperatorCoordinator> coordinators = new HashMap<>();
    private final Map<String, Execution> producerOfPartition = new HashMap<>();
    /** Source nodes whose splits changed hands since their enumerator's state was last logged. */
    private final Set<Integer> splitsMovedSinceState = new HashSet<>();
    private JobState state = JobState.JOB_CREATED;
    private final long submittedAtMs;
    private long endedAtMs;
    private String failure = "";
    private int restarts;
    private Scheduler.Cancellable wakeUp;
    private JobEventLog eventLog = JobEventLog.NONE;
    private int restoredTasks;

    public JobMaster(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobGraph graph, JobSettings settings, String sessionId, SlotPool slots, TaskManagerGateways gateways,
            Scheduler scheduler, LongSupplier clock, TerminationListener listener, long submittedAtMs) {
        this.jobId = jobId;
        this.jobClass = jobClass;
        this.params = Map.copyOf(params);
        this.config = Map.copyOf(config);
        this.graph = graph;
        this.settings = settings;
        this.sessionId = sessionId;
        this.slots = slots;
        this.gateways = gateways;
        this.scheduler = scheduler;
        this.clock = clock;
        this.listener = listener;
        this.submittedAtMs = submittedAtMs;
        for (JobVertex vertex : graph.vertices()) {
            executions.add(null);
            ranges.add(null);
            if (vertex.parallelism() > 0) {
                initializeVertex(vertex.id(), vertex.parallelism());
            }
        }
    }

    /** Where the job's progress is recorded for recovery; set before {@link #start}. */
    public void eventLog(JobEventLog log) {
        this.eventLog = log;
    }

    /** Records that the job starts over from the beginning, before {@link #start}. */
    public void logRunStarted(String reason) {
        eventLog.runStarted(reason);
    }

    /**
     * Creates the coordinators; a source's enumerator lists its input here, so a missing input
     * file fails the submission before anything is stored or scheduled.
     */
    public void prepare() throws Exception {
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().operation() instanceof Operation.SourceOp op) {
                int vertexId = vertex.id();
                int nodeId = vertex.head().id();
                SourceCoordinator coordinator = new SourceCoordinator(vertex.head().name(), op.source(),
                        vertex.parallelism(), (subtask, event) -> sendToSubtask(vertexId, subtask, event),
                        new SourceCoordinator.AssignmentListener() {
                            @Override
                            public void assigned(int subtask, List<byte[]> splits) {
                                eventLog.splitsAssigned(nodeId, subtask, executions.get(vertexId)[subtask].attempt(),
                                        splits);
                                splitsMovedSinceState.add(nodeId);
                            }

                            @Override
                            public void returned(int subtask, int count) {
                                eventLog.splitsReturned(nodeId, subtask, count);
                                splitsMovedSinceState.add(nodeId);
                            }
                        });
                coordinator.start();
                coordinators.put(vertex.head().id(), coordinator);
            }
        }
    }

    /**
     * Batch job recovery: takes over what survived an earlier leader. Decided parallelism and
     * ranges are kept, restored executions are FINISHED with their partitions where they are,
     * the rest will run with attempt numbers above every earlier one, and the source enumerators
     * continue from their logged state with the splits of re-run subtasks given back.
     *
     * @return how many executions were restored
     */
    public int restore(io.duraflow.jobmanager.recovery.RecoveryPlan plan) throws Exception {
        for (var vertexPlan : plan.vertices().values()) {
            if (executions.get(vertexPlan.vertex()) == null) {
                initializeVertex(vertexPlan.vertex(), vertexPlan.parallelism());
            }
            ranges.set(vertexPlan.vertex(), vertexPlan.rangeBounds().clone());
        }
        int restoredCount = 0;
        for (var restored : plan.restored().values()) {
            Execution execution = executions.get(restored.key().vertex())[restored.key().subtask()];
            List<SubpartitionSizes> outputs = new ArrayList<>();
            for (var partition : restored.partitions()) {
                outputs.add(SubpartitionSizes.newBuilder().setEdgeId(partition.getEdgeId())
                        .setPartitionId(partition.getPartitionId()).addAllBytes(partition.getSubpartitionBytesList())
                        .setRecords(partition.getRecords()).build());
            }
            List<CollectedResult> collected = new ArrayList<>();
            for (var c : restored.collected()) {
                collected.add(CollectedResult.newBuilder().setName(c.getName()).setSubtask(c.getSubtask())
                        .setRecords(c.getRecords()).setData(c.getData()).build());
            }
            execution.restoreFinished(restored.attempt(), restored.tmId(), restored.tmAddress(), outputs, collected,
                    restored.recordsIn(), restored.recordsOut());
            for (SubpartitionSizes output : outputs) {
                producerOfPartition.put(output.getPartitionId(), execution);
            }
            restoredCount++;
        }
        List<Execution> rerun = new ArrayList<>();
        for (var entry : plan.nextAttempts().entrySet()) {
            Execution[] subtasks = executions.get(entry.getKey().vertex());
            if (subtasks != null) {
                Execution execution = subtasks[entry.getKey().subtask()];
                execution.restoreAttempt(entry.getValue());
                rerun.add(execution);
            }
        }
        for (var entry : plan.enumeratorStates().entrySet()) {
            OperatorCoordinator coordinator = coordinators.get(entry.getKey());
            if (coordinator != null) {
                coordinator.resetToSnapshot(-1, entry.getValue());
            }
        }
        for (JobVertex vertex : graph.vertices()) {
            // Without a snapshot the enumerator is a new one, which would hand out every split again.
            if (coordinators.get(vertex.head().id()) instanceof SourceCoordinator source
                    && !source.supportsBatchSnapshot() && allRestored(plan, vertex)) {
                source.restoreDrained();
            }
        }
        for (var entry : plan.restoredSplits().entrySet()) {
            if (coordinators.get(entry.getKey()) instanceof SourceCoordinator source) {
                for (var perSubtask : entry.getValue().entrySet()) {
                    source.markAssigned(perSubtask.getKey(), perSubtask.getValue());
                }
            }
        }
        for (var entry : plan.splitsToReturn().entrySet()) {
            if (coordinators.get(entry.getKey()) instanceof SourceCoordinator source) {
                for (var perSubtask : entry.getValue().entrySet()) {
                    source.returnSplits(perSubtask.getKey(), perSubtask.getValue());
                }
            }
        }
        if (!rerun.isEmpty()) {
            // Fences off late events of the old leader: older attempts of these never count again.
            eventLog.executionsReset(rerun, "run again after a JobManager failover");
        }
        restoredTasks = restoredCount;
        return restoredCount;
    }

    private static boolean allRestored(io.duraflow.jobmanager.recovery.RecoveryPlan plan, JobVertex vertex) {
        for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
            if (!plan.isRestored(vertex.id(), subtask)) {
                return false;
            }
        }
        return vertex.parallelism() > 0;
    }

    /** Executions taken over from an earlier leader without running again. */
    public int restoredTasks() {
        return restoredTasks;
    }

    /** Starts scheduling; {@link #prepare} must have succeeded. */
    public void start() {
        if (state != JobState.JOB_CREATED) {
            throw new IllegalStateException("job " + jobId + " cannot start: it is " + state);
        }
        state = JobState.JOB_RUNNING;
        LOG.info("Job {} ({}) running: {} vertices, fingerprint {}", jobId, graph.jobName(), graph.vertices().size(),
                graph.fingerprint());
        if (allFinished()) {
            // Recovery restored every task: the job had finished, only its result was not stored.
            terminate(JobState.JOB_FINISHED, "");
            return;
        }
        schedule();
    }

    /** The job cannot even start (e.g. its input vanished before a recovery): it fails. */
    public void failBeforeStart(String cause) {
        terminate(JobState.JOB_FAILED, cause);
    }

    /**
     * This JobManager lost its leadership: stop the tasks and coordinators without a result,
     * the next leader recovers the job.
     */
    public void suspend() {
        if (isTerminal()) {
            return;
        }
        stopActiveExecutions("this JobManager no longer leads");
        closeCoordinators();
        state = JobState.JOB_CREATED;
        LOG.info("Job {} suspended: this JobManager no longer leads", jobId);
    }

    /** Cancels every deploying or running task and frees its slot; no restart is pending after. */
    private void stopActiveExecutions(String reason) {
        if (wakeUp != null) {
            wakeUp.cancel();
        }
        for (Execution[] subtasks : executions) {
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (execution.state().isActive()) {
                    gateways.cancel(execution.tmId(), execution.attemptId());
                    slots.free(execution.tmId());
                    // Marked stopped now, so a late confirmation cannot free the slot a second time.
                    execution.transition(ExecutionState.CANCELED, reason);
                }
            }
        }
    }

    /**
     * A source subtask finished: if splits changed hands since its enumerator's state was last
     * logged, log the state now, so that replay sees this finish with an enumerator state as new
     * as its splits. Once per finish rather than once per split: the state holds every split left.
     */
    private void logCoordinatorStateBeforeFinish(Execution execution) {
        if (eventLog == JobEventLog.NONE) {
            return;
        }
        int nodeId = graph.vertex(execution.vertex()).head().id();
        if (!splitsMovedSinceState.remove(nodeId)
                || !(coordinators.get(nodeId) instanceof SourceCoordinator source)) {
            return;
        }
        try {
            eventLog.coordinatorState(nodeId, source.supportsBatchSnapshot() ? source.snapshot(-1) : null);
        } catch (Exception e) {
            // Without the state the finish cannot be kept by a recovery; the job itself goes on.
            LOG.warn("Job {}: cannot snapshot the split enumerator of node {}: {}", jobId, nodeId, e.toString());
            splitsMovedSinceState.add(nodeId);
        }
    }

    private void closeCoordinators() {
        for (OperatorCoordinator coordinator : coordinators.values()) {
            try {
                coordinator.close();
            } catch (Exception e) {
                LOG.warn("Job {}: closing a coordinator failed", jobId, e);
            }
        }
        coordinators.clear();
    }

    private void initializeVertex(int vertexId, int parallelism) {
        Execution[] subtasks = new Execution[parallelism];
        for (int i = 0; i < parallelism; i++) {
            subtasks[i] = new Execution(jobId, vertexId, i);
        }
        executions.set(vertexId, subtasks);
    }

    // ------------------------------------------------------------------ scheduling

    /** Deploys every task whose inputs are ready, as long as there are free slots. */
    public void schedule() {
        if (state != JobState.JOB_RUNNING) {
            return;
        }
        long now = clock.getAsLong();
        long nextWakeUp = Long.MAX_VALUE;
        for (JobVertex vertex : graph.vertices()) {
            if (!inputsFinished(vertex)) {
                continue;
            }
            if (ranges.get(vertex.id()) == null) {
                decideParallelism(vertex);
            }
            for (Execution execution : executions.get(vertex.id())) {
                if (execution.state() != ExecutionState.CREATED) {
                    continue;
                }
                if (execution.notBeforeMs() > now) {
                    nextWakeUp = Math.min(nextWakeUp, execution.notBeforeMs());
                    continue;
                }
                SlotPool.SlotOffer slot = slots.allocate();
                if (slot == null) {
                    return;
                }
                deploy(vertex, execution, slot);
            }
        }
        if (nextWakeUp != Long.MAX_VALUE) {
            if (wakeUp != null) {
                wakeUp.cancel();
            }
            wakeUp = scheduler.schedule(this::schedule, Math.max(1, nextWakeUp - now));
        }
    }

    private boolean inputsFinished(JobVertex vertex) {
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

    private void decideParallelism(JobVertex vertex) {
        int keyGroups = settings.keyGroups();
        if (vertex.inputs().isEmpty()) {
            int[] bounds = {0, 1};
            ranges.set(vertex.id(), bounds);
            // Logged for sources too: a new leader then knows that every subtask may have run as
            // attempt 0, even one that was deployed but had not asked for a split yet.
            eventLog.vertexInitialized(vertex.id(), executions.get(vertex.id()).length, bounds);
            return;
        }
        long[] bytes = new long[keyGroups];
        for (int edgeId : vertex.inputs()) {
            for (Execution producer : executions.get(graph.edge(edgeId).producer())) {
                SubpartitionSizes sizes = producer.output(edgeId);
                for (int i = 0; i < sizes.getBytesCount() && i < keyGroups; i++) {
                    bytes[i] += sizes.getBytes(i);
                }
            }
        }
        int parallelism;
        if (executions.get(vertex.id()) != null) {
            parallelism = executions.get(vertex.id()).length;
        } else {
            long total = 0;
            for (long b : bytes) {
                total += b;
            }
            parallelism = AdaptiveParallelism.decide(total, settings.bytesPerTask(), settings.minParallelism(),
                    settings.maxParallelism(), keyGroups);
            initializeVertex(vertex.id(), parallelism);
            LOG.info("Job {}: vertex '{}' reads {} bytes; parallelism {}", jobId, vertex.name(), total, parallelism);
        }
        int[] bounds = vertex.parallelism() > 0 ? AdaptiveParallelism.evenRanges(keyGroups, parallelism)
                : AdaptiveParallelism.ranges(bytes, parallelism);
        ranges.set(vertex.id(), bounds);
        eventLog.vertexInitialized(vertex.id(), parallelism, bounds);
    }

    private void deploy(JobVertex vertex, Execution execution, SlotPool.SlotOffer slot) {
        execution.assign(slot.tmId(), slot.address());
        execution.transition(ExecutionState.DEPLOYING, "slot on " + slot.tmId());
        int[] bounds = ranges.get(vertex.id());
        TaskDeployment.Builder deployment = TaskDeployment.newBuilder().setJmSessionId(sessionId)
                .setAttempt(execution.attemptId()).setJobClass(jobClass).putAllParams(params).putAllConfig(config)
                .setDefaultParallelism(settings.defaultParallelism()).setFingerprint(graph.fingerprint())
                .setParallelism(executions.get(vertex.id()).length);
        for (int edgeId : vertex.inputs()) {
            InputGate.Builder gate = InputGate.newBuilder().setEdgeId(edgeId)
                    .setSubpartitionFrom(bounds[execution.subtask()]).setSubpartitionTo(bounds[execution.subtask() + 1]);
            for (Execution producer : executions.get(graph.edge(edgeId).producer())) {
                gate.addProducers(PartitionLocation.newBuilder().setPartitionId(producer.partitionId(edgeId))
                        .setTmId(producer.tmId()).setTmAddress(producer.tmAddress()));
            }
            deployment.addInputs(gate);
        }
        for (int edgeId : vertex.outputs()) {
            deployment.addOutputs(OutputSpec.newBuilder().setEdgeId(edgeId).setPartitionId(execution.partitionId(edgeId))
                    .setSubpartitions(settings.keyGroups()));
        }
        AttemptId attempt = execution.attemptId();
        gateways.deploy(slot.tmId(), deployment.build(), error -> {
            if (isCurrent(attempt) && execution.state().isActive()) {
                taskFailed(execution, "deployment to " + slot.tmId() + " failed: " + error.getMessage(), null);
            }
        });
    }

    private void sendToSubtask(int vertexId, int subtask, OperatorEvent event) {
        Execution execution = executions.get(vertexId)[subtask];
        if (execution.state().isActive()) {
            gateways.sendOperatorEvent(execution.tmId(), execution.attemptId(), graph.vertex(vertexId).head().id(),
                    event);
        }
    }

    // ------------------------------------------------------------------ events from TaskManagers

    private boolean isCurrent(AttemptId attempt) {
        if (attempt.getVertex() < 0 || attempt.getVertex() >= executions.size()) {
            return false;
        }
        Execution[] subtasks = executions.get(attempt.getVertex());
        return subtasks != null && attempt.getSubtask() >= 0 && attempt.getSubtask() < subtasks.length
                && subtasks[attempt.getSubtask()].attempt() == attempt.getAttempt();
    }

    public void onTaskStateUpdate(TaskStateUpdate update) {
        AttemptId attempt = update.getAttempt();
        if (!isCurrent(attempt)) {
            LOG.info("Job {}: ignoring {} of superseded attempt {}", jobId, update.getState(), attempt);
            return;
        }
        Execution execution = executions.get(attempt.getVertex())[attempt.getSubtask()];
        if (!execution.state().isActive()) {
            LOG.info("Job {}: ignoring {} for {} in state {}", jobId, update.getState(), execution, execution.state());
            return;
        }
        switch (update.getState()) {
            case RUNNING -> {
                if (execution.state() == ExecutionState.DEPLOYING) {
                    execution.transition(ExecutionState.RUNNING, "TaskManager says running");
                }
            }
            case FINISHED -> taskFinished(execution, update);
            case FAILED -> taskFailed(execution, update.getFailure(), update.getMissingPartitionId().isEmpty()
                    ? null : update.getMissingPartitionId());
            case CANCELED -> {
                execution.transition(ExecutionState.CANCELED, "TaskManager says cancelled");
                slots.free(execution.tmId());
                if (state == JobState.JOB_CANCELLING) {
                    completeCancellationIfIdle();
                } else if (state == JobState.JOB_RUNNING) {
                    taskFailed(execution, "task was cancelled by its TaskManager", null);
                }
            }
            default -> LOG.warn("Job {}: unexpected task state {} from {}", jobId, update.getState(), execution);
        }
    }

    private void taskFinished(Execution execution, TaskStateUpdate update) {
        execution.transition(ExecutionState.FINISHED, "TaskManager says finished");
        execution.finished(update.getOutputsList(), update.getCollectedList(), update.getRecordsIn(),
                update.getRecordsOut());
        for (SubpartitionSizes output : update.getOutputsList()) {
            producerOfPartition.put(output.getPartitionId(), execution);
        }
        logCoordinatorStateBeforeFinish(execution);
        eventLog.executionFinished(execution, update);
        slots.free(execution.tmId());
        if (state == JobState.JOB_CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (allFinished()) {
            terminate(JobState.JOB_FINISHED, "");
            return;
        }
        schedule();
    }

    private void taskFailed(Execution execution, String cause, String missingPartitionId) {
        if (execution.state().isActive()) {
            execution.transition(ExecutionState.FAILED, cause);
            slots.free(execution.tmId());
        }
        if (state == JobState.JOB_CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (state != JobState.JOB_RUNNING) {
            return;
        }
        LOG.warn("Job {}: task {} failed: {}", jobId, execution, cause);
        // A consumer that could not read a partition whose producer is already running again (a
        // failover that was counted when the partition was lost) is part of that failover.
        boolean consequence = missingPartitionId != null && !producerOfPartition.containsKey(missingPartitionId);
        if (!consequence && !tryRestart(cause)) {
            return;
        }
        resetExecution(execution, "it failed: " + cause);
        if (missingPartitionId != null) {
            Execution producer = producerOfPartition.get(missingPartitionId);
            // The map holds only partitions of current, FINISHED attempts (a reset removes them).
            if (producer != null) {
                resetExecution(producer, "its partition " + missingPartitionId + " is lost");
            }
        }
        schedule();
    }

    /** A TaskManager is gone: its running tasks failed, and its finished output is lost. */
    public void onTaskManagerLost(String tmId) {
        if (state != JobState.JOB_RUNNING && state != JobState.JOB_CANCELLING) {
            return;
        }
        List<Execution> running = new ArrayList<>();
        List<Execution> lostOutput = new ArrayList<>();
        java.util.Set<Execution> resetting = new java.util.HashSet<>();
        for (Execution[] subtasks : executions) {
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (tmId.equals(execution.tmId()) && execution.state().isActive()) {
                    running.add(execution);
                    resetting.add(execution);
                }
            }
        }
        // Consumers before producers: a finished task whose consumer is about to run again is
        // needed again too, even if that consumer had finished.
        for (int vertex = executions.size() - 1; vertex >= 0; vertex--) {
            Execution[] subtasks = executions.get(vertex);
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (tmId.equals(execution.tmId()) && execution.state() == ExecutionState.FINISHED
                        && outputStillNeeded(execution, resetting)) {
                    lostOutput.add(execution);
                    resetting.add(execution);
                }
            }
        }
        if (running.isEmpty() && lostOutput.isEmpty()) {
            return;
        }
        for (Execution execution : running) {
            execution.transition(ExecutionState.FAILED, "TaskManager " + tmId + " lost");
        }
        if (state == JobState.JOB_CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        String cause = "TaskManager " + tmId + " was lost";
        LOG.warn("Job {}: {} with {} running tasks and {} finished tasks whose output is still needed", jobId, cause,
                running.size(), lostOutput.size());
        if (!tryRestart(cause)) {
            return;
        }
        for (Execution execution : running) {
            resetExecution(execution, cause);
        }
        for (Execution execution : lostOutput) {
            resetExecution(execution, cause + " with its output");
        }
        schedule();
    }

    private boolean outputStillNeeded(Execution execution, java.util.Set<Execution> resetting) {
        for (int edgeId : graph.vertex(execution.vertex()).outputs()) {
            Execution[] consumers = executions.get(graph.edge(edgeId).consumer());
            if (consumers == null) {
                return true;
            }
            for (Execution consumer : consumers) {
                if (consumer.state() != ExecutionState.FINISHED || resetting.contains(consumer)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean tryRestart(String cause) {
        if (restarts >= settings.maxRestarts()) {
            terminate(JobState.JOB_FAILED, cause + " (no restarts left: restart-strategy allowed "
                    + settings.maxRestarts() + ")");
            return false;
        }
        restarts++;
        return true;
    }

    private void resetExecution(Execution execution, String reason) {
        for (int edgeId : graph.vertex(execution.vertex()).outputs()) {
            String partitionId = execution.partitionId(edgeId);
            producerOfPartition.remove(partitionId);
            if (execution.tmId() != null && execution.state() == ExecutionState.FINISHED) {
                gateways.releasePartitions(execution.tmId(), jobId, List.of(partitionId));
            }
        }
        OperatorCoordinator coordinator = coordinators.get(graph.vertex(execution.vertex()).head().id());
        if (coordinator != null) {
            try {
                coordinator.subtaskReset(execution.subtask());
            } catch (Exception e) {
                terminate(JobState.JOB_FAILED, "source coordinator failed to take splits back: " + e.getMessage());
                return;
            }
        }
        execution.reset(clock.getAsLong() + settings.restartDelayMs(), reason);
        eventLog.executionsReset(List.of(execution), reason);
    }

    public void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) {
        if (state != JobState.JOB_RUNNING || !isCurrent(attempt)) {
            return;
        }
        OperatorCoordinator coordinator = coordinators.get(nodeId);
        if (coordinator == null) {
            LOG.warn("Job {}: operator event for node {} which has no coordinator", jobId, nodeId);
            return;
        }
        try {
            coordinator.handleEventFromOperator(attempt.getSubtask(), event);
        } catch (Exception e) {
            terminate(JobState.JOB_FAILED, "operator coordinator of node " + nodeId + " failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ cancellation and the end

    public void cancel() {
        if (state == JobState.JOB_RUNNING || state == JobState.JOB_CREATED) {
            state = JobState.JOB_CANCELLING;
            for (Execution[] subtasks : executions) {
                if (subtasks == null) {
                    continue;
                }
                for (Execution execution : subtasks) {
                    if (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING) {
                        execution.transition(ExecutionState.CANCELING, "job cancelled");
                        gateways.cancel(execution.tmId(), execution.attemptId());
                    }
                }
            }
            completeCancellationIfIdle();
        }
    }

    /** Forces cancellation to end even if a TaskManager never confirms. */
    public void forceCancelled() {
        if (state == JobState.JOB_CANCELLING) {
            terminate(JobState.JOB_CANCELED, "cancelled by the user");
        }
    }

    private void completeCancellationIfIdle() {
        for (Execution[] subtasks : executions) {
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (execution.state().isActive()) {
                    return;
                }
            }
        }
        terminate(JobState.JOB_CANCELED, "cancelled by the user");
    }

    private boolean allFinished() {
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

    private void terminate(JobState terminal, String cause) {
        if (isTerminal()) {
            return;
        }
        state = terminal;
        failure = cause;
        endedAtMs = clock.getAsLong();
        stopActiveExecutions("job ended as " + terminal);
        for (String tmId : slots.taskManagers()) {
            gateways.releasePartitions(tmId, jobId, List.of());
        }
        closeCoordinators();
        if (terminal == JobState.JOB_FAILED) {
            LOG.error("Job {} failed: {}", jobId, cause);
        } else {
            LOG.info("Job {} {} after {} ms, {} restarts", jobId, terminal, endedAtMs - submittedAtMs, restarts);
        }
        listener.jobTerminated(this);
    }

    // ------------------------------------------------------------------ views

    public boolean isTerminal() {
        return state == JobState.JOB_FINISHED || state == JobState.JOB_FAILED || state == JobState.JOB_CANCELED;
    }

    public String jobId() {
        return jobId;
    }

    public JobState state() {
        return state;
    }

    public JobGraph graph() {
        return graph;
    }

    public Map<String, String> params() {
        return params;
    }

    public String jobClass() {
        return jobClass;
    }

    /** The job's own configuration overrides. */
    public Map<String, String> config() {
        return config;
    }

    public JobSettings settings() {
        return settings;
    }

    /** The subtasks of a vertex, or null while its parallelism is not decided. */
    public Execution[] executions(int vertexId) {
        return executions.get(vertexId);
    }

    public int restarts() {
        return restarts;
    }

    public JobStatus status() {
        JobStatus.Builder status = JobStatus.newBuilder().setJobId(jobId).setJobName(graph.jobName()).setState(state)
                .setSubmittedAtMs(submittedAtMs).setEndedAtMs(endedAtMs).setFailure(failure).setRestarts(restarts)
                .setJobClass(jobClass).setRestoredTasks(restoredTasks);
        for (JobVertex vertex : graph.vertices()) {
            VertexStatus.Builder v = VertexStatus.newBuilder().setId(vertex.id()).setName(vertex.name());
            Execution[] subtasks = executions.get(vertex.id());
            if (subtasks != null) {
                v.setParallelism(subtasks.length);
                for (Execution execution : subtasks) {
                    if (execution.state() == ExecutionState.FINISHED) {
                        v.setFinished(v.getFinished() + 1);
                        v.setRecordsIn(v.getRecordsIn() + execution.recordsIn());
                        v.setRecordsOut(v.getRecordsOut() + execution.recordsOut());
                    } else if (execution.state().isActive()) {
                        v.setRunning(v.getRunning() + 1);
                    }
                    v.setAttempts(v.getAttempts() + execution.attemptsStarted());
                    v.addTasks(TaskStatus.newBuilder().setAttempt(execution.attempt())
                            .setState(execution.state().name())
                            .setTmId(execution.tmId() == null ? "" : execution.tmId()));
                }
            }
            status.addVertices(v);
        }
        return status.build();
    }

    /** Collected results of finished sinks, by subtask order. */
    public List<CollectedResult> collected() {
        List<CollectedResult> results = new ArrayList<>();
        for (Execution[] subtasks : executions) {
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                results.addAll(execution.collected());
            }
        }
        return results;
    }
}

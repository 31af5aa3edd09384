package io.duraflow.jobmanager.scheduler;

import io.duraflow.jobmanager.Scheduler;
import io.duraflow.jobmanager.SlotPool;
import io.duraflow.jobmanager.TaskManagerGateways;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job: the orchestrator of its parts. The {@link ExecutionGraph} holds the executions;
 * the {@link SchedulingStrategy} says which run when (today {@link BlockingAdaptiveScheduling});
 * the {@link FailoverStrategy} says what a failure costs (today {@link BatchFailoverStrategy});
 * the {@link CoordinatorHolder} runs the operator coordinators; {@link RecoveryRestore} takes
 * over what an earlier leader left. This class owns the job's {@link JobMasterState}, talks to
 * slots and TaskManagers, and applies the strategies' decisions.
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
    private final ExecutionGraph executions;
    private final SchedulingStrategy scheduling;
    private final FailoverStrategy failover;
    private final CoordinatorHolder coordinators;
    private JobMasterState state = JobMasterState.CREATED;
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
        this.executions = new ExecutionGraph(jobId, graph);
        this.scheduling = new BlockingAdaptiveScheduling(executions, settings, () -> eventLog);
        this.failover = new BatchFailoverStrategy(settings.maxRestarts());
        this.coordinators = new CoordinatorHolder(executions, () -> eventLog, this::sendToSubtask);
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
     * Starts the coordinators; a source's enumerator lists its input here, so a missing input
     * file fails the submission before anything is stored or scheduled.
     */
    public void prepare() throws Exception {
        coordinators.start();
    }

    /**
     * Batch job recovery: takes over what survived an earlier leader (see {@link RecoveryRestore}).
     *
     * @return how many executions were restored
     */
    public int restore(RecoveryPlan plan) throws Exception {
        restoredTasks = RecoveryRestore.apply(plan, executions, coordinators, eventLog);
        return restoredTasks;
    }

    /** Executions taken over from an earlier leader without running again. */
    public int restoredTasks() {
        return restoredTasks;
    }

    /** Starts scheduling; {@link #prepare} must have succeeded. */
    public void start() {
        if (state != JobMasterState.CREATED) {
            throw new IllegalStateException("job " + jobId + " cannot start: it is " + state);
        }
        moveTo(JobMasterState.RUNNING, "started");
        LOG.info("Job {} ({}) running: {} vertices, fingerprint {}", jobId, graph.jobName(), graph.vertices().size(),
                graph.fingerprint());
        if (executions.allFinished()) {
            // Recovery restored every task: the job had finished, only its result was not stored.
            terminate(JobMasterState.FINISHED, "");
            return;
        }
        schedule();
    }

    /** The job cannot even start (e.g. its input vanished before a recovery): it fails. */
    public void failBeforeStart(String cause) {
        terminate(JobMasterState.FAILED, cause);
    }

    /**
     * This JobManager lost its leadership: stop the tasks and coordinators without a result,
     * the next leader recovers the job.
     */
    public void suspend() {
        if (state.isTerminal() || state == JobMasterState.SUSPENDED) {
            return;
        }
        stopActiveExecutions("this JobManager no longer leads");
        coordinators.closeAll();
        moveTo(JobMasterState.SUSPENDED, "this JobManager no longer leads");
        LOG.info("Job {} suspended: this JobManager no longer leads", jobId);
    }

    private void moveTo(JobMasterState target, String reason) {
        state = state.transitionTo(target, jobId, reason);
    }

    /** Cancels every deploying or running task and frees its slot; no restart is pending after. */
    private void stopActiveExecutions(String reason) {
        if (wakeUp != null) {
            wakeUp.cancel();
        }
        for (Execution execution : executions.active()) {
            gateways.cancel(execution.tmId(), execution.attemptId());
            slots.free(execution.tmId());
            // Marked stopped now, so a late confirmation cannot free the slot a second time.
            execution.transition(ExecutionState.CANCELED, reason);
        }
    }

    // ------------------------------------------------------------------ scheduling

    /** Deploys every task the scheduling strategy says may run, as long as there are free slots. */
    public void schedule() {
        if (state != JobMasterState.RUNNING) {
            return;
        }
        long now = clock.getAsLong();
        long nextWakeUp = scheduling.schedule(now, this::deployIntoFreeSlot);
        if (nextWakeUp != SchedulingStrategy.OUT_OF_SLOTS && nextWakeUp != SchedulingStrategy.NOTHING_WAITING) {
            if (wakeUp != null) {
                wakeUp.cancel();
            }
            wakeUp = scheduler.schedule(this::schedule, Math.max(1, nextWakeUp - now));
        }
    }

    private boolean deployIntoFreeSlot(Execution execution) {
        SlotPool.SlotOffer slot = slots.allocate();
        if (slot == null) {
            return false;
        }
        deploy(graph.vertex(execution.vertex()), execution, slot);
        return true;
    }

    private void deploy(JobVertex vertex, Execution execution, SlotPool.SlotOffer slot) {
        execution.assign(slot.tmId(), slot.address());
        execution.transition(ExecutionState.DEPLOYING, "slot on " + slot.tmId());
        int[] bounds = executions.ranges(vertex.id());
        TaskDeployment.Builder deployment = TaskDeployment.newBuilder().setJmSessionId(sessionId)
                .setAttempt(execution.attemptId()).setJobClass(jobClass).putAllParams(params).putAllConfig(config)
                .setDefaultParallelism(settings.defaultParallelism()).setFingerprint(graph.fingerprint())
                .setParallelism(executions.executions(vertex.id()).length);
        for (int edgeId : vertex.inputs()) {
            InputGate.Builder gate = InputGate.newBuilder().setEdgeId(edgeId)
                    .setSubpartitionFrom(bounds[execution.subtask()]).setSubpartitionTo(bounds[execution.subtask() + 1]);
            for (Execution producer : executions.executions(graph.edge(edgeId).producer())) {
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
            if (executions.current(attempt) == execution && execution.state().isActive()) {
                taskFailed(execution, "deployment to " + slot.tmId() + " failed: " + error.getMessage(), null, false);
            }
        });
    }

    private void sendToSubtask(int vertexId, int subtask, OperatorEvent event) {
        Execution execution = executions.executions(vertexId)[subtask];
        if (execution.state().isActive()) {
            gateways.sendOperatorEvent(execution.tmId(), execution.attemptId(), graph.vertex(vertexId).head().id(),
                    event);
        }
    }

    // ------------------------------------------------------------------ events from TaskManagers

    public void onTaskStateUpdate(TaskStateUpdate update) {
        AttemptId attempt = update.getAttempt();
        Execution execution = executions.current(attempt);
        if (execution == null) {
            LOG.info("Job {}: ignoring {} of superseded attempt {}", jobId, update.getState(), attempt);
            return;
        }
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
                    ? null : update.getMissingPartitionId(), false);
            case CANCELED -> {
                execution.transition(ExecutionState.CANCELED, "TaskManager says cancelled");
                slots.free(execution.tmId());
                if (state == JobMasterState.CANCELLING) {
                    completeCancellationIfIdle();
                } else if (state == JobMasterState.RUNNING) {
                    taskFailed(execution, "task was cancelled by its TaskManager", null, false);
                }
            }
            default -> LOG.warn("Job {}: unexpected task state {} from {}", jobId, update.getState(), execution);
        }
    }

    private void taskFinished(Execution execution, TaskStateUpdate update) {
        execution.transition(ExecutionState.FINISHED, "TaskManager says finished");
        execution.finished(update.getOutputsList(), update.getCollectedList(), update.getRecordsIn(),
                update.getRecordsOut());
        executions.outputsFinished(execution, update.getOutputsList());
        coordinators.logStateBeforeFinish(execution);
        eventLog.executionFinished(execution, update);
        slots.free(execution.tmId());
        if (state == JobMasterState.CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (executions.allFinished()) {
            terminate(JobMasterState.FINISHED, "");
            return;
        }
        schedule();
    }

    private void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
        if (execution.state().isActive()) {
            execution.transition(ExecutionState.FAILED, cause);
            slots.free(execution.tmId());
        }
        if (state == JobMasterState.CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (state != JobMasterState.RUNNING) {
            return;
        }
        LOG.warn("Job {}: task {} failed: {}", jobId, execution, cause);
        apply(failover.onFailure(executions,
                new FailoverStrategy.TaskFailed(execution, cause, missingPartitionId, nonRetriable), restarts));
    }

    /** A TaskManager is gone: its running tasks failed, and its finished output is lost. */
    public void onTaskManagerLost(String tmId) {
        if (state != JobMasterState.RUNNING && state != JobMasterState.CANCELLING) {
            return;
        }
        List<Execution> lostActive = executions.activeOn(tmId);
        for (Execution execution : lostActive) {
            execution.transition(ExecutionState.FAILED, "TaskManager " + tmId + " lost");
        }
        if (state == JobMasterState.CANCELLING) {
            if (!lostActive.isEmpty()) {
                completeCancellationIfIdle();
            }
            return;
        }
        FailoverStrategy.Decision decision = failover.onFailure(executions,
                new FailoverStrategy.TaskManagerLost(tmId, lostActive), restarts);
        if (decision instanceof FailoverStrategy.Restart restart && !restart.resets().isEmpty()) {
            LOG.warn("Job {}: TaskManager {} was lost with {} running tasks and {} finished tasks whose output is"
                    + " still needed", jobId, tmId, lostActive.size(), restart.resets().size() - lostActive.size());
        }
        apply(decision);
    }

    /** Applies what the failover strategy decided. */
    private void apply(FailoverStrategy.Decision decision) {
        if (decision instanceof FailoverStrategy.FailJob failJob) {
            terminate(JobMasterState.FAILED, failJob.cause());
            return;
        }
        FailoverStrategy.Restart restart = (FailoverStrategy.Restart) decision;
        if (restart.resets().isEmpty()) {
            return;
        }
        if (restart.counted()) {
            restarts++;
        }
        for (FailoverStrategy.Reset reset : restart.resets()) {
            resetExecution(reset.execution(), reset.reason());
            if (state != JobMasterState.RUNNING) {
                return;
            }
        }
        schedule();
    }

    private void resetExecution(Execution execution, String reason) {
        boolean releaseOutput = execution.tmId() != null && execution.state() == ExecutionState.FINISHED;
        executions.forgetOutputs(execution);
        if (releaseOutput) {
            for (int edgeId : graph.vertex(execution.vertex()).outputs()) {
                gateways.releasePartitions(execution.tmId(), jobId, List.of(execution.partitionId(edgeId)));
            }
        }
        try {
            coordinators.subtaskReset(execution.vertex(), execution.subtask());
        } catch (Exception e) {
            terminate(JobMasterState.FAILED, "source coordinator failed to take splits back: " + e.getMessage());
            return;
        }
        execution.reset(clock.getAsLong() + settings.restartDelayMs(), reason);
        eventLog.executionsReset(List.of(execution), reason);
    }

    public void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) {
        if (state != JobMasterState.RUNNING || executions.current(attempt) == null) {
            return;
        }
        if (coordinators.get(nodeId) == null) {
            LOG.warn("Job {}: operator event for node {} which has no coordinator", jobId, nodeId);
            return;
        }
        try {
            coordinators.handleEvent(nodeId, attempt.getSubtask(), event);
        } catch (Exception e) {
            terminate(JobMasterState.FAILED, "operator coordinator of node " + nodeId + " failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ cancellation and the end

    public void cancel() {
        if (state == JobMasterState.RUNNING || state == JobMasterState.CREATED) {
            moveTo(JobMasterState.CANCELLING, "cancelled by the user");
            for (Execution execution : executions.all()) {
                if (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING) {
                    execution.transition(ExecutionState.CANCELING, "job cancelled");
                    gateways.cancel(execution.tmId(), execution.attemptId());
                }
            }
            completeCancellationIfIdle();
        }
    }

    /** Forces cancellation to end even if a TaskManager never confirms. */
    public void forceCancelled() {
        if (state == JobMasterState.CANCELLING) {
            terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    private void completeCancellationIfIdle() {
        if (executions.active().isEmpty()) {
            terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    private void terminate(JobMasterState terminal, String cause) {
        if (state.isTerminal() || state == JobMasterState.SUSPENDED) {
            return;
        }
        moveTo(terminal, cause.isEmpty() ? "done" : cause);
        failure = cause;
        endedAtMs = clock.getAsLong();
        stopActiveExecutions("job ended as " + terminal);
        for (String tmId : slots.taskManagers()) {
            gateways.releasePartitions(tmId, jobId, List.of());
        }
        coordinators.closeAll();
        if (terminal == JobMasterState.FAILED) {
            LOG.error("Job {} failed: {}", jobId, cause);
        } else {
            LOG.info("Job {} {} after {} ms, {} restarts", jobId, terminal, endedAtMs - submittedAtMs, restarts);
        }
        listener.jobTerminated(this);
    }

    // ------------------------------------------------------------------ views

    public boolean isTerminal() {
        return state.isTerminal();
    }

    public String jobId() {
        return jobId;
    }

    public JobMasterState state() {
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
        return executions.executions(vertexId);
    }

    public int restarts() {
        return restarts;
    }

    long submittedAtMs() {
        return submittedAtMs;
    }

    long endedAtMs() {
        return endedAtMs;
    }

    /** The cause of a FAILED job, or "". */
    String failure() {
        return failure;
    }

    public JobStatus status() {
        return JobStatusView.of(this, executions);
    }

    /** Collected results of finished sinks, by subtask order. */
    public List<CollectedResult> collected() {
        return executions.collected();
    }
}

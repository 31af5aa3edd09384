package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;

import java.util.OptionalLong;
import io.duraflow.rpc.Rpc;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what the {@link FailoverStrategy} decides for a failure: counts the restarts it
 * uses, and resets each execution it names across the job's parts (its outputs on the
 * TaskManagers, its new attempt in the execution graph after the restart delay, the splits its
 * source coordinator takes back, the job event log). The strategy decides and stays pure; this
 * class does the work; the {@link JobMaster} goes on from the {@link Outcome} (schedules the new
 * attempts, or fails the job). A restart-from-checkpoint strategy for streaming jobs plugs in as
 * another {@link FailoverStrategy}.
 *
 * <p>Main thread only, like the JobMaster; called only while the job is RUNNING.
 */
public final class FailoverHandler {
    private static final Logger LOG = LoggerFactory.getLogger(FailoverHandler.class);

    /** What the job does after a failure was handled. */
    public sealed interface Outcome permits Unchanged, ExecutionsReset, FailJob {}

    /** Nothing was lost: nothing to do. */
    record Unchanged() implements Outcome {}

    /** Executions were reset: their new attempts wait to be scheduled. */
    public record ExecutionsReset(int count) implements Outcome {}

    /**
     * The job fails with this cause: the strategy said so, or a reset could not be carried out
     * (then the resets after it were not tried).
     */
    public record FailJob(String cause) implements Outcome {}

    private final String jobId;
    private final FailoverStrategy strategy;
    private final ExecutionGraph executions;
    private final TaskManagerActions taskManagers;
    private final CoordinatorHolder coordinators;
    private final Supplier<JobEventLog> eventLog;
    private final LongSupplier clock;
    /** Whether a counted restart is left, and after which delay. */
    private final RestartBackoff backoff;
    /** The delay of the last counted restart; resets the strategy does not count wait as long. */
    private long restartDelayMs;
    private int restarts;

    public FailoverHandler(FailoverStrategy strategy, ExecutionGraph executions, TaskManagerActions taskManagers,
            CoordinatorHolder coordinators, Supplier<JobEventLog> eventLog, LongSupplier clock, RestartBackoff backoff) {
        this.jobId = executions.jobId();
        this.strategy = strategy;
        this.executions = executions;
        this.taskManagers = taskManagers;
        this.coordinators = coordinators;
        this.eventLog = eventLog;
        this.clock = clock;
        this.backoff = backoff;
    }

    /** Counted restarts so far (also those before a reset of an exponential-delay strategy). */
    public int restarts() {
        return restarts;
    }

    /** Asks the strategy what the failure costs and carries it out. */
    public Outcome onFailure(FailoverStrategy.Failure failure) {
        FailoverStrategy.Decision decision = strategy.onFailure(executions, failure, restarts);
        if (decision instanceof FailoverStrategy.FailJob failJob) {
            return new FailJob(failJob.cause());
        }
        FailoverStrategy.Restart restart = (FailoverStrategy.Restart) decision;
        if (restart.resets().isEmpty()) {
            return new Unchanged();
        }
        if (failure instanceof FailoverStrategy.TaskManagerLost lost) {
            LOG.warn("Job {}: TaskManager {} was lost with {} running tasks and {} finished tasks whose output is"
                    + " still needed", jobId, lost.tmId(), lost.lostActive().size(),
                    restart.resets().size() - lost.lostActive().size());
        }
        if (restart.counted()) {
            OptionalLong delay = backoff.onFailure(clock.getAsLong());
            if (delay.isEmpty()) {
                return new FailJob(causeOf(failure) + " (no restarts left: " + backoff.exhaustedReason() + ")");
            }
            restartDelayMs = delay.getAsLong();
            restarts++;
        }
        for (FailoverStrategy.Reset reset : restart.resets()) {
            String failed = resetExecution(reset.execution(), reset.reason());
            if (failed != null) {
                return new FailJob(failed);
            }
        }
        return new ExecutionsReset(restart.resets().size());
    }

    private static String causeOf(FailoverStrategy.Failure failure) {
        if (failure instanceof FailoverStrategy.TaskFailed failed) {
            return failed.cause();
        }
        return "TaskManager " + ((FailoverStrategy.TaskManagerLost) failure).tmId() + " was lost";
    }

    /** Resets one execution; returns why the job must fail instead, or null. */
    private String resetExecution(Execution execution, String reason) {
        taskManagers.releaseOutputs(execution);
        // Reset first: splits the enumerator gives straight back to this subtask wait for the new
        // attempt (the old one may have finished, and would never read them).
        executions.reset(execution, clock.getAsLong() + restartDelayMs, reason);
        try {
            coordinators.subtaskReset(execution.vertex(), execution.subtask());
        } catch (Exception e) {
            return "source coordinator failed to take splits back: " + Rpc.describe(e);
        }
        eventLog.get().executionsReset(List.of(execution), reason);
        try {
            // Splits the enumerator gave straight back to this subtask belong to its new attempt.
            coordinators.reportAssignments(execution.vertex());
        } catch (Exception e) {
            return "source coordinator failed to record split assignments: " + Rpc.describe(e);
        }
        return null;
    }
}

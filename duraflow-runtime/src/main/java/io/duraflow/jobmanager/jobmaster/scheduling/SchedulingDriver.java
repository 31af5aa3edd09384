package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.JobMaster;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.mailbox.Mailbox;
import java.util.function.LongSupplier;

/**
 * Runs the job's {@link SchedulingStrategy}: deploys the executions it hands out into free slots
 * through {@link TaskManagerActions}, and when it says an execution waits for its restart delay,
 * wakes the job up then (one wake-up pending at a time, the latest asked for). The strategy
 * decides which executions may run; this class deploys them; the {@link JobMaster} says when to
 * schedule (only while the job runs) and what a failed deployment means. A pipelined-region
 * strategy for streaming jobs plugs in as another {@link SchedulingStrategy}.
 *
 * <p>Main thread only, like the JobMaster.
 */
public final class SchedulingDriver {

    /**
     * Told, on the main thread, that the TaskManager refused {@code attempt}, the attempt of
     * {@code execution} that was deployed, or could not be reached. The execution may have moved
     * on to another attempt since.
     */
    public interface DeploymentFailed {
        void failed(Execution execution, AttemptId attempt, String tmId, Throwable error);
    }

    private final SchedulingStrategy strategy;
    private final TaskManagerActions taskManagers;
    private final Mailbox scheduler;
    private final LongSupplier clock;
    private final Runnable wakeUpAction;
    private final DeploymentFailed deploymentFailed;
    private final java.util.function.Supplier<JobEventLog> eventLog;
    private Mailbox.Cancellable wakeUp;

    /** @param wakeUpAction what runs when a restart delay ends: scheduling again, through the JobMaster */
    public SchedulingDriver(SchedulingStrategy strategy, TaskManagerActions taskManagers, Mailbox scheduler,
            LongSupplier clock, Runnable wakeUpAction, DeploymentFailed deploymentFailed,
            java.util.function.Supplier<JobEventLog> eventLog) {
        this.strategy = strategy;
        this.taskManagers = taskManagers;
        this.scheduler = scheduler;
        this.clock = clock;
        this.wakeUpAction = wakeUpAction;
        this.deploymentFailed = deploymentFailed;
        this.eventLog = eventLog;
    }

    /**
     * Deploys every execution the strategy says may run, as long as there are free slots, and
     * logs where each went (one event per TaskManager): a new leader waits for those TaskManagers
     * to adopt what still runs there.
     */
    public void schedule() {
        long now = clock.getAsLong();
        java.util.Map<String, java.util.List<Execution>> deployed = new java.util.LinkedHashMap<>();
        long nextWakeUp = strategy.schedule(now, new SchedulingStrategy.Deployer() {
            @Override
            public boolean deploy(Execution execution) {
                if (!deployIntoFreeSlot(execution)) {
                    return false;
                }
                deployed.computeIfAbsent(execution.tmId(), tm -> new java.util.ArrayList<>()).add(execution);
                return true;
            }

            @Override
            public int freeSlots() {
                return taskManagers.freeSlots();
            }

            @Override
            public int slotsToTake(java.util.List<Execution> executions) {
                return taskManagers.slotsToTake(executions);
            }
        });
        deployed.forEach((tmId, executions) -> eventLog.get().executionsDeployed(tmId, executions));
        if (nextWakeUp != SchedulingStrategy.OUT_OF_SLOTS && nextWakeUp != SchedulingStrategy.NOTHING_WAITING) {
            cancelWakeUp();
            wakeUp = scheduler.schedule(wakeUpAction, Math.max(1, nextWakeUp - now));
        }
    }

    /** What the job's waiting tasks wait for, as users read it, or null (see {@link SchedulingStrategy#waitingFor}). */
    public String waitingFor() {
        return strategy.waitingFor();
    }

    /** Calls off the pending wake-up, if any: the job stopped running its executions. */
    public void cancelWakeUp() {
        if (wakeUp != null) {
            wakeUp.cancel();
        }
    }

    private boolean deployIntoFreeSlot(Execution execution) {
        AttemptId attempt = execution.attemptId();
        return taskManagers.deployIntoFreeSlot(execution,
                (tmId, error) -> deploymentFailed.failed(execution, attempt, tmId, error));
    }
}

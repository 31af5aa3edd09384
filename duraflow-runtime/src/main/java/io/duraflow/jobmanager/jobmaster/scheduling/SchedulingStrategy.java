package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;

/**
 * Decides which executions run when, and so how producers lay out their output:
 * {@link BlockingAdaptiveScheduling} (batch: a vertex runs once all its inputs are finished, with a
 * parallelism decided from their bytes, each consumer reading a range of key groups) or
 * {@link PipelinedScheduling} (streaming: every task at once, consumer subtask i reading
 * subpartition i). Main thread only.
 */
public interface SchedulingStrategy {
    /** Deploys one execution into a free slot; false when no slot is free. */
    interface Deployer {
        boolean deploy(Execution execution);

        /** Slots free now; a strategy that deploys all or nothing checks it first. */
        default int freeSlots() {
            return Integer.MAX_VALUE;
        }

        /** Free slots these executions need (those that share a slot need one between them). */
        default int slotsToTake(java.util.List<Execution> executions) {
            return executions.size();
        }
    }

    /** {@link #schedule} returned early: no slot is free; a freed slot triggers scheduling again. */
    long OUT_OF_SLOTS = -1;
    /** {@link #schedule} found nothing waiting for a restart delay. */
    long NOTHING_WAITING = Long.MAX_VALUE;

    /**
     * Hands every execution that may run now to {@code deployer}, in order, until it runs out of
     * slots.
     *
     * @return the earliest time (ms) at which an execution waiting for its restart delay may
     *         run, {@link #NOTHING_WAITING}, or {@link #OUT_OF_SLOTS}
     */
    long schedule(long nowMs, Deployer deployer);

    /** How many subpartitions each producer writes on edge {@code edgeId}. */
    int subpartitions(int edgeId);

    /**
     * What the job's waiting tasks wait for, and what to do about it, as users read it (in
     * status, the REST API and the web UI); null when nothing holds them back but their inputs
     * or a restart delay.
     */
    default String waitingFor() {
        return null;
    }
}

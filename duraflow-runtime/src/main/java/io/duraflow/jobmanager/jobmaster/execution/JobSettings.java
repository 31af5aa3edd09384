package io.duraflow.jobmanager.jobmaster.execution;


/**
 * What a job master needs to know from the configuration.
 *
 * @param defaultParallelism   parallelism of sources without their own
 * @param keyGroups            subpartitions per exchange = the largest parallelism of a consumer
 * @param minParallelism       lower bound of a runtime-decided parallelism
 * @param maxParallelism       upper bound of a runtime-decided parallelism
 * @param bytesPerTask         input bytes one task of a runtime-decided vertex should read
 * @param restart              the restart strategy: how many failovers, after which delays
 * @param collectMaxBytes      most bytes all collecting sinks of the job together may send back
 */
public record JobSettings(int defaultParallelism, int keyGroups, int minParallelism, int maxParallelism,
        long bytesPerTask, RestartStrategy restart, long collectMaxBytes) {

    /** Settings with a fixed-delay restart strategy. */
    public JobSettings(int defaultParallelism, int keyGroups, int minParallelism, int maxParallelism,
            long bytesPerTask, int maxRestarts, long restartDelayMs, long collectMaxBytes) {
        this(defaultParallelism, keyGroups, minParallelism, maxParallelism, bytesPerTask,
                RestartStrategy.fixedDelay(maxRestarts, restartDelayMs), collectMaxBytes);
    }

    /** Restarts allowed (between two resets of an exponential-delay strategy). */
    public int maxRestarts() {
        return restart.attempts();
    }

    /** The delay before the first restart. */
    public long restartDelayMs() {
        return restart.initialMs();
    }
}

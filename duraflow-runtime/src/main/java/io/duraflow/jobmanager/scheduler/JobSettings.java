package io.duraflow.jobmanager.scheduler;

/**
 * What a job master needs to know from the configuration.
 *
 * @param defaultParallelism   parallelism of sources without their own
 * @param keyGroups            subpartitions per exchange = the largest parallelism of a consumer
 * @param minParallelism       lower bound of a runtime-decided parallelism
 * @param maxParallelism       upper bound of a runtime-decided parallelism
 * @param bytesPerTask         input bytes one task of a runtime-decided vertex should read
 * @param maxRestarts          failovers allowed before the job fails (0: none)
 * @param restartDelayMs       wait before a failed task runs again
 * @param collectMaxBytes      most bytes all collecting sinks of the job together may send back
 */
public record JobSettings(int defaultParallelism, int keyGroups, int minParallelism, int maxParallelism,
        long bytesPerTask, int maxRestarts, long restartDelayMs, long collectMaxBytes) {}

package io.duraflow.config;

/** How a job runs; the value of {@code execution.runtime-mode}. */
public enum RuntimeMode {
    /**
     * All tasks run at once over pipelined exchanges, with checkpoints; a job whose sources are
     * all bounded ends when its input is processed.
     */
    STREAMING,
    /** Stage by stage over blocking exchanges, with batch job recovery; every source must be bounded. */
    BATCH,
    /** Batch when every source is bounded and no operator runs in streaming mode only, else streaming. */
    AUTOMATIC
}

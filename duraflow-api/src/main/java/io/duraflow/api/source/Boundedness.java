package io.duraflow.api.source;

/**
 * Whether a source ends. A job whose sources are all {@link #BOUNDED} can run as a batch job
 * (blocking exchanges, stages one after another); one {@link #CONTINUOUS_UNBOUNDED} source
 * makes it a streaming job.
 */
public enum Boundedness {
    /** The source reaches the end of its input and its readers return END_OF_INPUT. */
    BOUNDED,
    /** The source runs until the job is cancelled (new files, a message queue, a generator without a count). */
    CONTINUOUS_UNBOUNDED
}

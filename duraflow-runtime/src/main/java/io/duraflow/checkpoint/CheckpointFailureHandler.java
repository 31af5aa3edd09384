package io.duraflow.checkpoint;

/** How the coordinator tells the job it must fail over (more failed checkpoints than tolerated). */
@FunctionalInterface
public interface CheckpointFailureHandler {
    /** Called on the main thread; {@code cause} is one line naming the limit and the last failure. */
    void failJob(String cause);
}

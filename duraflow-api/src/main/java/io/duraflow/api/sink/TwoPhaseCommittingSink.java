package io.duraflow.api.sink;

import io.duraflow.api.types.TypeSerializer;
import java.util.List;
import java.util.Set;

/**
 * A sink whose output becomes visible exactly once, in step with checkpoints: writers prepare
 * committables when a barrier passes, a {@link Committer} applies them once the checkpoint
 * completed. {@link CommittingSinkDriver} is the runtime's side. What the runtime does at each
 * step: see docs/design/exactly-once-sinks-and-sources.md#twophasecommittingsink.
 */
public interface TwoPhaseCommittingSink<T, C> extends Sink<T> {
    @Override
    CommittingSinkWriter<T, C> createWriter(SinkContext context) throws Exception;

    /**
     * One per subtask, made before its writer; applies committables on the task thread. {@code
     * context} is the subtask's, the writer's too (its metrics are the subtask's).
     */
    Committer<C> createCommitter(SinkContext context) throws Exception;

    /** Writes committables into checkpoints; versioned, never Java serialization. */
    TypeSerializer<C> committableSerializer();

    /**
     * Removes what earlier attempts of this job, and the earlier jobs whose state it restored,
     * left behind and no committable will ever name: data written by a writer that failed, or was
     * cancelled, before its checkpoint completed. Called on every start of a subtask, after
     * {@code restoredCommittables} (all subtasks', empty without a checkpoint) were committed and
     * before the writer is created; and once more at the end of a bounded input, when the
     * subtask's final checkpoint completed and everything its writer prepared is committed (no
     * committables then; the writer writes nothing more). Must not touch anything a restored
     * committable names or another subtask's writer of this attempt may be writing.
     *
     * @param restoredJobIds the ids of the jobs whose sink wrote the restored state: the current
     *        job once it completed a checkpoint, and, for a job started from a savepoint or a
     *        retained checkpoint of job A, A and the jobs A's state came from in turn (empty without
     *        a restore). Their writers no longer run: the job's own earlier attempts are fenced off,
     *        and an earlier job must have ended before its savepoint is restored into the same output
     *        (else both would write the same records).
     */
    default void cleanUpLeftovers(SinkContext context, List<C> restoredCommittables, Set<String> restoredJobIds)
            throws Exception {}
}

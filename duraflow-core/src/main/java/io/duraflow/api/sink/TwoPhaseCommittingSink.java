package io.duraflow.api.sink;

import io.duraflow.api.types.TypeSerializer;
import java.util.List;
import java.util.Set;

/**
 * A sink whose output becomes visible exactly once, in step with checkpoints: its writers prepare
 * <em>committables</em> (say, "rename this in-progress file to that part file") when a checkpoint
 * barrier passes, and a {@link Committer} applies them once that checkpoint completed.
 *
 * <h2>What the runtime does (streaming mode)</h2>
 * {@link CommittingSinkDriver} is this contract as code; a sink task delegates to it.
 * <ol>
 *   <li><b>Start or restore.</b> Every subtask reads the committables of the checkpoint it
 *       restores (none without one), commits all of them with {@link Committer#commit}, calls
 *       {@link #cleanUpLeftovers} with them, then creates its writer. The committables are stored
 *       as <b>UNION</b> operator state: every restored subtask gets the committables of every
 *       subtask of the checkpoint, whatever the old and new parallelism, so none is lost on
 *       rescale, and all subtasks commit all of them (commits are idempotent, and concurrent
 *       commits of one committable by several subtasks must be safe). Beside them, UNION state
 *       keeps the sink's job lineage: the ids of the jobs whose state led to this one (see
 *       {@link #cleanUpLeftovers}).
 *   <li><b>Records</b> go to {@link CommittingSinkWriter#write}.
 *   <li><b>Checkpoint barrier n</b> (task thread, before the barrier is forwarded or acknowledged):
 *       {@link CommittingSinkWriter#prepareCommit}(n) closes and flushes in-progress data and
 *       returns its committables. The operator state of checkpoint n holds these and every
 *       committable of an earlier checkpoint not committed yet (an aborted checkpoint, or a
 *       completion notification that has not arrived), written with
 *       {@link #committableSerializer()}.
 *   <li><b>Checkpoint n completed</b> (notification): the committables of checkpoints up to n are
 *       committed and forgotten. A lost notification is harmless: the next completed checkpoint
 *       commits them, and so does a restore from checkpoint n.
 *   <li><b>End of input</b>: the task takes a final checkpoint and commits it when it completes, so
 *       the rest of the output becomes visible before the task finishes, and
 *       {@link #cleanUpLeftovers} runs once more. The task must not finish
 *       before it heard of that completion: a finished job is never restored, so a lost final
 *       notification would leave the last committables uncommitted.
 *   <li><b>Failure</b>: the writer is closed, never asked to prepare again; committables of
 *       checkpoints that did not complete are dropped with the writer's state (their records are
 *       replayed after the restore) and {@link #cleanUpLeftovers} of the next attempt removes what
 *       they left behind.
 * </ol>
 * The runtime must restore from the latest completed checkpoint and abort the checkpoints pending
 * at the failure before the restored tasks start (so no committable of the failed execution is
 * committed later).
 *
 * <h2>Batch mode</h2>
 * No checkpoints: the writer is a plain {@link SinkWriter}; {@link SinkWriter#finish()} prepares
 * and commits everything, making the output visible as other sinks do.
 *
 * @param <T> the records
 * @param <C> the committables; they land in checkpoints, so only through {@link #committableSerializer()}
 */
public interface TwoPhaseCommittingSink<T, C> extends Sink<T> {
    @Override
    CommittingSinkWriter<T, C> createWriter(SinkContext context) throws Exception;

    /** One per subtask; applies committables on the task thread. */
    Committer<C> createCommitter() throws Exception;

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

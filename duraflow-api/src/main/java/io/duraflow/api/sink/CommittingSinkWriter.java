package io.duraflow.api.sink;

import java.util.List;

/**
 * The writer of a {@link TwoPhaseCommittingSink}: writes records into data that is not visible
 * yet and, at every checkpoint, hands that data over as committables. Single-threaded: the task
 * thread calls every method.
 *
 * <p>In streaming mode the runtime never calls {@link #finish()}: output becomes visible only
 * through committables (in a job that takes no checkpoints, those of one last {@link
 * #prepareCommit} at the end of input, under {@link CommittingSinkDriver#END_OF_INPUT}). {@link #abort()} and {@link #close()} must leave alone the data of
 * committables already returned by {@link #prepareCommit}: a checkpoint that holds them may still
 * complete, or be restored, and then they are committed.
 */
public interface CommittingSinkWriter<T, C> extends SinkWriter<T> {
    /**
     * Checkpoint {@code checkpointId}'s barrier reached the sink: close or flush the data written
     * since the previous call so that it survives a crash of this process, and return what must
     * be committed once the checkpoint completes (possibly nothing). Records written after this
     * call belong to the next checkpoint.
     */
    List<C> prepareCommit(long checkpointId) throws Exception;
}

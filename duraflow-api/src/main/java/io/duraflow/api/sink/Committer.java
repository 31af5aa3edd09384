package io.duraflow.api.sink;

import java.util.List;

/**
 * Makes prepared output visible. Called on the task thread when a checkpoint completes and again,
 * for the committables stored in it, whenever a job restores from that checkpoint, possibly by
 * several subtasks at the same time (union state, see {@link TwoPhaseCommittingSink}).
 */
public interface Committer<C> extends AutoCloseable {
    /**
     * Applies every committable. Idempotent: a committable committed before, or whose effect is
     * already visible, is skipped without error, also when another subtask commits it
     * concurrently. Throws only if a committable can no longer be applied (its data is gone and
     * its effect is not visible), with a message naming what is missing.
     */
    void commit(List<C> committables) throws Exception;

    @Override
    default void close() throws Exception {}
}

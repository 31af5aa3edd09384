package io.duraflow.state.storage;

/**
 * Who a piece of checkpointed state belongs to, which decides where a {@link CheckpointStreamFactory}
 * puts it. Task-owned state (seed 003) is not a scope: a file-merging factory decides to put
 * {@link #EXCLUSIVE} state of several checkpoints into files its TaskManager owns.
 */
public enum CheckpointedStateScope {
    /** Used by one checkpoint only (full snapshots, operator state); lives and dies with {@code chk-<n>/}. */
    EXCLUSIVE,
    /** May be used by later checkpoints too (incremental files); under {@code shared/}, reference-counted. */
    SHARED
}

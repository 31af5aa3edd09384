/**
 * What a checkpoint holds and where its bytes are.
 *
 * <p>Handles are immutable values that cross processes (a task acknowledges a checkpoint with
 * them, the JobMaster writes them into the checkpoint's {@code _metadata}) and are read back on
 * restore. Every byte of state is reached through a {@link StreamStateHandle}: a segment of a file
 * (path, offset, length) or, for small state, bytes inline in the metadata. Segments from the
 * start mean checkpoint file merging (many segments in one physical file) changes where segments
 * go, never what a handle is.
 *
 * <p>Keyed state is partitioned into key groups ({@link KeyGroupRange}); a keyed handle says which
 * key groups it covers and can be cut to a sub-range, which is how a job is rescaled.
 */
package io.duraflow.state;

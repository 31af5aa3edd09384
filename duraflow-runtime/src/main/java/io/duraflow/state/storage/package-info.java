/**
 * Checkpoint storage: where the bytes of state snapshots go. A {@link
 * io.duraflow.state.storage.CheckpointStreamFactory} per checkpoint makes {@link
 * io.duraflow.state.storage.CheckpointOutputStream}s that end in a {@link
 * io.duraflow.state.StreamStateHandle} (inline bytes or a file segment); {@link
 * io.duraflow.state.storage.StreamStateHandles} reads and discards them on any file system.
 * Checkpoint file merging (seed 003) is another stream factory; backends do not change.
 */
package io.duraflow.state.storage;

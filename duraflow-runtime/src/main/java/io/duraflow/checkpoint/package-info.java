/**
 * Checkpoints of streaming jobs, on the JobManager side: the {@link
 * io.duraflow.checkpoint.CheckpointCoordinator} and its parts, the failure manager, the {@code
 * _metadata} format, the completed-checkpoint store and id counters, the shared-state registry.
 * See docs/design/checkpoint-coordination.md.
 */
package io.duraflow.checkpoint;

/**
 * What user code may say about checkpoints: whether it can take part in one right now
 * ({@link SnapshotAvailability}, answered by any {@link CheckpointAvailabilityProvider}), and a
 * helper that bounds how long it may keep saying "not now" ({@link SoftFailureTolerance}).
 */
package io.duraflow.api.checkpoint;

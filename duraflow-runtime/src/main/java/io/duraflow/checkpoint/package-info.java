/**
 * Checkpoints of streaming jobs, on the JobManager side.
 *
 * <ul>
 *   <li>{@link io.duraflow.checkpoint.CheckpointCoordinator}: one per job, on the JobMaster's main
 *       thread; triggers checkpoints, collects acknowledgements, finalizes, aborts, subsumes,
 *       restores. It reaches the job only through {@link io.duraflow.checkpoint.CheckpointTasks},
 *       {@link io.duraflow.checkpoint.OperatorCoordinatorCheckpoints} and
 *       {@link io.duraflow.checkpoint.CheckpointFailureHandler}, so it is tested alone. Its parts:
 *       {@link io.duraflow.checkpoint.PendingCheckpoints} (the checkpoints in progress),
 *       {@link io.duraflow.checkpoint.CheckpointStarter} (starting one),
 *       {@link io.duraflow.checkpoint.CheckpointAcknowledgements} (the tasks' answers),
 *       {@link io.duraflow.checkpoint.CheckpointFinalizer} (making one durable) and
 *       {@link io.duraflow.checkpoint.CheckpointRestorer} (what a restarting job restores).</li>
 *   <li>{@link io.duraflow.checkpoint.CheckpointFailureManager}: counts failures toward
 *       {@code tolerable-failed-checkpoints}.</li>
 *   <li>{@link io.duraflow.checkpoint.CheckpointMetadataFormat}: the {@code _metadata} file;
 *       {@link io.duraflow.checkpoint.StateHandleCodec}: state handles as protobuf, for the metadata
 *       and the tasks' acknowledgements.</li>
 *   <li>{@link io.duraflow.checkpoint.CompletedCheckpointStore} and
 *       {@link io.duraflow.checkpoint.CheckpointIdCounter}: what survives a JobManager failover.</li>
 *   <li>{@link io.duraflow.checkpoint.StateFileRegistry}: the shared-state registry, which
 *       checkpoint uses which file, so files (incremental SST files shared by several checkpoints
 *       among them) are deleted exactly when no retained or pending checkpoint needs them.</li>
 *   <li>{@link io.duraflow.checkpoint.CheckpointDirectoryScan}: a job's checkpoint directory against
 *       its retained checkpoints: missing referenced files, and orphans nothing refers to.</li>
 * </ul>
 */
package io.duraflow.checkpoint;

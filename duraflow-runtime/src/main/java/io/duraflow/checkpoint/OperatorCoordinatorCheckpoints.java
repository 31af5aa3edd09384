package io.duraflow.checkpoint;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The job's operator coordinators (split enumerators), which snapshot before any task is
 * triggered, so that every split assigned after the snapshot is assigned after the sources' part
 * of the checkpoint too. Implemented by the JobMaster over its coordinator holders.
 */
public interface OperatorCoordinatorCheckpoints {
    /**
     * Asks every coordinator for its state at checkpoint {@code checkpointId}; may complete on
     * another thread (user code runs off the main thread).
     *
     * @return each coordinator's snapshot by its operator's uid
     */
    CompletableFuture<Map<String, byte[]>> snapshotCoordinators(long checkpointId);

    default void notifyCheckpointComplete(long checkpointId) {
    }

    default void notifyCheckpointAborted(long checkpointId) {
    }

    /** A job without coordinators. */
    OperatorCoordinatorCheckpoints NONE = checkpointId -> CompletableFuture.completedFuture(Map.of());
}

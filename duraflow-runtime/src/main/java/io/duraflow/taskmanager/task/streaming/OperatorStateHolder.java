package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.OperatorBackendParameters;
import io.duraflow.state.backend.OperatorStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.storage.CheckpointStreamFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import io.duraflow.taskmanager.task.StreamOperator;

/**
 * The state of one operator of a streaming task: its operator state, and its keyed state when it
 * is keyed, restored from what the checkpoint holds under the operator's uid. Task thread only,
 * except the futures {@link #snapshot} returns, which write on another thread.
 */
final class OperatorStateHolder implements AutoCloseable {
    /** How a keyed operator's keys are partitioned in this subtask. */
    record Keyed(TypeSerializer<Object> keySerializer, int maxParallelism, KeyGroupRange keyGroups, Path localDirectory) {}

    private final String uid;
    private final OperatorStateBackend operatorState;
    private final KeyedStateBackend<Object> keyedState;
    private final long restoredCheckpointId;

    private OperatorStateHolder(String uid, OperatorStateBackend operatorState, KeyedStateBackend<Object> keyedState,
            long restoredCheckpointId) {
        this.uid = uid;
        this.operatorState = operatorState;
        this.keyedState = keyedState;
        this.restoredCheckpointId = restoredCheckpointId;
    }

    /**
     * Makes (and restores) the backends of one operator.
     *
     * @param description          names the operator instance in errors, e.g. "sum (uid 3f..) 2/4"
     * @param restore              what the checkpoint holds for this operator and subtask (empty: a fresh start)
     * @param restoredCheckpointId the checkpoint restored from, or -1
     * @param keyed                null for an operator without keyed state
     */
    static OperatorStateHolder create(StateBackend backend, String uid, String description,
            OperatorSubtaskState restore, long restoredCheckpointId, Keyed keyed) throws IOException {
        OperatorStateBackend operatorState = backend.createOperatorStateBackend(
                new OperatorBackendParameters(description, restore.operatorState()));
        KeyedStateBackend<Object> keyedState = null;
        if (keyed != null) {
            try {
                keyedState = backend.createKeyedStateBackend(new KeyedBackendParameters<>(description,
                        keyed.keySerializer(), keyed.maxParallelism(), keyed.keyGroups(), restore.keyedState(),
                        keyed.localDirectory()));
            } catch (IOException | RuntimeException e) {
                operatorState.dispose();
                throw e;
            }
        } else if (!restore.keyedState().isEmpty()) {
            operatorState.dispose();
            throw new IllegalStateException("the checkpoint holds keyed state for operator " + description
                    + ", which is not keyed any more; give the keyed operator its old uid");
        }
        return new OperatorStateHolder(uid, operatorState, keyedState, restoredCheckpointId);
    }

    String uid() {
        return uid;
    }

    KeyedStateBackend<Object> keyedState() {
        return keyedState;
    }

    StreamOperator.StateInitializationContext initializationContext() {
        return new StreamOperator.StateInitializationContext(restoredCheckpointId, operatorState, keyedState);
    }

    /**
     * Takes the synchronous part of this operator's snapshot now (the operator has already put
     * what it keeps outside its backends into them, in {@link StreamOperator#snapshotState}); the
     * returned future writes it. Cancelling the future cancels the writes, which delete their files.
     */
    RunnableFuture<OperatorSubtaskState> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streams) throws IOException {
        return snapshot(checkpointId, timestamp, streams, SnapshotType.CHECKPOINT);
    }

    /**
     * As above, of the given type: a {@link SnapshotType#SAVEPOINT} or {@link
     * SnapshotType#FULL_CHECKPOINT} refers to no file of an earlier checkpoint, and a savepoint is
     * in the canonical format every backend restores.
     */
    RunnableFuture<OperatorSubtaskState> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streams, SnapshotType type) throws IOException {
        RunnableFuture<List<OperatorStateHandle>> operatorPart = operatorState.snapshot(checkpointId, timestamp, streams);
        RunnableFuture<List<KeyedStateHandle>> keyedPart;
        try {
            keyedPart = keyedState == null ? null
                    : keyedState.snapshot(checkpointId, timestamp, streams, type);
        } catch (IOException | RuntimeException e) {
            operatorPart.cancel(true);
            throw e;
        }
        return new FutureTask<>(() -> {
            operatorPart.run();
            List<OperatorStateHandle> operatorHandles = operatorPart.get();
            List<KeyedStateHandle> keyedHandles = List.of();
            if (keyedPart != null) {
                keyedPart.run();
                keyedHandles = keyedPart.get();
            }
            return new OperatorSubtaskState(keyedHandles, operatorHandles);
        }) {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                operatorPart.cancel(mayInterruptIfRunning);
                if (keyedPart != null) {
                    keyedPart.cancel(mayInterruptIfRunning);
                }
                return super.cancel(mayInterruptIfRunning);
            }
        };
    }

    void notifyCheckpointComplete(long checkpointId) {
        if (keyedState != null) {
            keyedState.notifyCheckpointComplete(checkpointId);
        }
    }

    void notifyCheckpointAborted(long checkpointId) {
        if (keyedState != null) {
            keyedState.notifyCheckpointAborted(checkpointId);
        }
    }

    @Override
    public void close() {
        try {
            operatorState.dispose();
        } finally {
            if (keyedState != null) {
                keyedState.dispose();
            }
        }
    }
}

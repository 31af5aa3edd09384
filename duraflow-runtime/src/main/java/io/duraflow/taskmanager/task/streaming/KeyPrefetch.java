package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.functions.KeySelector;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.taskmanager.task.HeadOperator;

/**
 * The {@link HeadOperator#prefetch} of a keyed operator: the keys of the records about to be
 * processed go to the backend's {@link KeyedStateBackend#prefetch}, so it can load their state
 * together. A key the selector fails on ends the batch there; {@link HeadOperator#process} meets
 * the failure again, in order. Task thread only.
 */
final class KeyPrefetch {
    private final KeySelector<Object, Object> keySelector;
    private final Object[] keys = new Object[PipelinedInputHandler.MAX_BATCH];

    KeyPrefetch(KeySelector<Object, Object> keySelector) {
        this.keySelector = keySelector;
    }

    void prefetch(KeyedStateBackend<Object> backend, Object[] records, int count) {
        int n = Math.min(count, keys.length);
        for (int i = 0; i < n; i++) {
            try {
                keys[i] = keySelector.getKey(records[i]);
            } catch (Exception e) {
                n = i;
                break;
            }
        }
        backend.prefetch(keys, n);
        java.util.Arrays.fill(keys, 0, n, null);
    }
}

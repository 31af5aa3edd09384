package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.functions.KeySelector;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.taskmanager.task.HeadOperator;

/**
 * The {@link HeadOperator#prefetch} of a keyed operator: the keys of the records about to be
 * processed go to the backend's {@link KeyedStateBackend#prefetch}, so it can load their state
 * together, and are kept for {@link #keyOf}, so each record's key is extracted once (and is the
 * very object the backend saw, which lets it reuse the key group it computed). A key the selector
 * fails on ends the batch there; {@link #keyOf} meets the failure again, in order. Task thread only.
 */
final class KeyPrefetch {
    private final KeySelector<Object, Object> keySelector;
    private final Object[] records = new Object[PipelinedInputHandler.MAX_BATCH];
    private final Object[] keys = new Object[PipelinedInputHandler.MAX_BATCH];
    /** Records and keys of the last batch; the next record's index among them. */
    private int count;
    private int cursor;

    KeyPrefetch(KeySelector<Object, Object> keySelector) {
        this.keySelector = keySelector;
    }

    void prefetch(KeyedStateBackend<Object> backend, Object[] batch, int batchSize) {
        java.util.Arrays.fill(records, 0, count, null);
        java.util.Arrays.fill(keys, 0, count, null);
        int n = Math.min(batchSize, keys.length);
        for (int i = 0; i < n; i++) {
            try {
                keys[i] = keySelector.getKey(batch[i]);
            } catch (Exception e) {
                n = i;
                break;
            }
            records[i] = batch[i];
        }
        count = n;
        cursor = 0;
        backend.prefetch(keys, n);
    }

    /** The key of {@code record}: the one the last prefetch extracted if it is the batch's next record. */
    Object keyOf(Object record) throws Exception {
        int at = cursor;
        if (at < count && records[at] == record) {
            cursor = at + 1;
            records[at] = null;
            return keys[at];
        }
        return keySelector.getKey(record);
    }
}

package io.duraflow.state.backend;

import io.duraflow.api.state.OperatorStateStore;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.RunnableFuture;

/**
 * Operator (non-keyed) state of one parallel instance: named lists that are split over the new
 * instances ({@link #getListState}) or given whole to each of them ({@link #getUnionListState})
 * when the job is restored with another parallelism. Declaring a name again with the other
 * distribution or another serializer, or differently from the restored checkpoint, is an
 * {@link IncompatibleStateException}. Snapshots work as in {@link KeyedStateBackend}: the
 * synchronous part copies the lists (operator state is small: splits, pending commits), the
 * returned future writes them.
 */
public interface OperatorStateBackend extends OperatorStateStore, AutoCloseable {
    /** Names of the lists declared or restored, sorted. */
    List<String> stateNames();

    RunnableFuture<List<OperatorStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory) throws IOException;

    void dispose();

    @Override
    default void close() {
        dispose();
    }
}

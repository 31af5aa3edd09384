package io.duraflow.state.heap;

import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.OperatorBackendParameters;
import io.duraflow.state.backend.OperatorStateBackend;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.operator.DefaultOperatorStateBackend;
import java.io.IOException;

/**
 * {@code state.backend.type: heap}: keyed state as objects in memory, written whole at every
 * checkpoint in the canonical key-groups format (so its checkpoints are also savepoints); operator
 * state in the {@link DefaultOperatorStateBackend} every backend shares.
 */
public final class HeapStateBackend implements StateBackend {
    public static final String NAME = "heap";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public <K> KeyedStateBackend<K> createKeyedStateBackend(KeyedBackendParameters<K> parameters) throws IOException {
        return HeapKeyedStateBackend.restore(parameters);
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(OperatorBackendParameters parameters) throws IOException {
        return DefaultOperatorStateBackend.restore(parameters);
    }
}

package io.duraflow.state.backend;

import java.io.IOException;

/**
 * Makes the state backends of a task's operators; chosen by {@code state.backend.type}
 * ({@code StateBackendLoader}). Restoring happens while a backend is made: a missing, short or
 * corrupt state file, or state written for another key type or number of key groups, is an
 * {@link IOException} (or {@link IncompatibleStateException}) naming the file or the state.
 */
public interface StateBackend {
    /** The value of {@code state.backend.type} that selects this backend. */
    String name();

    <K> KeyedStateBackend<K> createKeyedStateBackend(KeyedBackendParameters<K> parameters) throws IOException;

    OperatorStateBackend createOperatorStateBackend(OperatorBackendParameters parameters) throws IOException;
}

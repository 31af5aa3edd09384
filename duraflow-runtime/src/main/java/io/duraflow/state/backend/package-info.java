/**
 * What a task asks of state backends: {@link io.duraflow.state.backend.StateBackend} makes a
 * {@link io.duraflow.state.backend.KeyedStateBackend} (keyed state and timers of one operator
 * instance over its key groups) and an {@link io.duraflow.state.backend.OperatorStateBackend};
 * both snapshot in a short synchronous part on the task thread and an asynchronous part that
 * writes. Implementations: {@code io.duraflow.state.heap}, {@code io.duraflow.state.rocksdb};
 * every keyed backend passes {@code KeyedStateBackendContractTest}.
 */
package io.duraflow.state.backend;

package io.duraflow.state.backend;

import io.duraflow.state.OperatorStateHandle;
import java.util.List;
import java.util.Objects;

/**
 * What an operator state backend is made from.
 *
 * @param operatorDescription names the operator instance in errors
 * @param restoreState handles as the redistribution assigned them; empty for a fresh start
 */
public record OperatorBackendParameters(String operatorDescription, List<OperatorStateHandle> restoreState) {
    public OperatorBackendParameters {
        Objects.requireNonNull(operatorDescription, "operatorDescription");
        restoreState = List.copyOf(restoreState);
    }
}

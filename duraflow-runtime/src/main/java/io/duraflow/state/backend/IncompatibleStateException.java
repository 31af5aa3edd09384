package io.duraflow.state.backend;

/**
 * A state is declared in a way that does not match how it was declared before: another kind or
 * serializer than the restored checkpoint (or an earlier declaration in this run) says. The
 * message names the state and both declarations.
 */
public final class IncompatibleStateException extends IllegalStateException {
    public IncompatibleStateException(String message) {
        super(message);
    }
}

package io.duraflow.taskmanager.task;

import java.util.function.Function;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives the {@link StreamOperator} lifecycle of a chain's operators (in topological order: the
 * head, then every operator before the ones it feeds) in the order that interface documents.
 * Task thread only.
 */
final class ChainLifecycle {
    private enum State { CREATED, OPEN, INPUT_ENDED, CLOSED }

    private final List<StreamOperator> operators = new ArrayList<>();
    private State state = State.CREATED;

    /** Adds the next operator in topological order; only while the chain is being built. */
    void add(StreamOperator operator) {
        require(State.CREATED, "add an operator");
        operators.add(operator);
    }

    /**
     * Initializes and opens the operators, tail first. If one throws, the ones opened stay
     * opened: {@link #close()} releases every operator anyway.
     */
    void open(StreamOperator.OperatorContext context,
            Function<StreamOperator, StreamOperator.StateInitializationContext> stateOf) throws Exception {
        require(State.CREATED, "open");
        state = State.OPEN;
        for (int i = operators.size() - 1; i >= 0; i--) {
            StreamOperator operator = operators.get(i);
            operator.initializeState(stateOf.apply(operator));
            operator.open(context);
        }
    }

    /**
     * All input has been pushed: ends the input of the one-input operators head to tail, so each
     * can emit its last records into a downstream that still takes them. (A head reading
     * exchanges got {@link HeadOperator#endInput(int)} per input already, from the input gate.)
     */
    void endInput() throws Exception {
        require(State.OPEN, "end the input");
        state = State.INPUT_ENDED;
        for (StreamOperator operator : operators) {
            if (operator instanceof Downstream downstream) {
                downstream.endInput();
            }
        }
    }

    /**
     * Closes every operator head to tail, also after a failure; an operator that fails to close
     * does not keep the others open. Idempotent.
     *
     * @throws Exception the first failure, the later ones suppressed in it
     */
    void close() throws Exception {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        Exception first = null;
        for (StreamOperator operator : operators) {
            try {
                operator.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void require(State expected, String action) {
        if (state != expected) {
            throw new IllegalStateException("cannot " + action + " a chain that is " + state);
        }
    }
}

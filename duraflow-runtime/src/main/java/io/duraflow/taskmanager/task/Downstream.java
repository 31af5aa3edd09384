package io.duraflow.taskmanager.task;

/** Receives records inside an operator chain (a one-input operator or an exchange output). */
public interface Downstream extends StreamOperator {
    void push(Object record) throws Exception;

    /** No more records will be pushed; emit what is left. Called once, in chain order. */
    default void endInput() throws Exception {}
}

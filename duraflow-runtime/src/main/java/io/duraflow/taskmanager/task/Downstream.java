package io.duraflow.taskmanager.task;

/** Receives records inside an operator chain; finish is called once, in chain order. */
interface Downstream {
    void push(Object record) throws Exception;

    default void finish() throws Exception {}
}

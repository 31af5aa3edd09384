package io.duraflow.api.state;

/**
 * State of one parallel instance of an operator, for sources and sinks: a list of items (splits,
 * pending commits) that is redistributed when the job is restored with another parallelism.
 */
public interface OperatorStateStore {
    /**
     * A list whose items are spread over the new instances on rescale: together they get every
     * item exactly once.
     */
    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    /** A list that every instance gets whole on restore (the union of all instances' lists). */
    <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor);
}

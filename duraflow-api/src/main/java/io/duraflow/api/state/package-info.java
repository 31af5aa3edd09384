/**
 * State that survives failures: declared through descriptors (a name and serializers), kept by
 * the task's state backend, written to checkpoints and restored from them.
 *
 * <p>Keyed state ({@link ValueState}, {@link ListState}, {@link MapState}) is scoped to the key
 * of the record being processed and partitioned into key groups, so a job can be rescaled by
 * moving whole key groups. Operator state ({@link OperatorStateStore}) belongs to one parallel
 * instance (a source's splits, a sink's pending commits) and is redistributed as a list on
 * rescale.
 */
package io.duraflow.api.state;

package io.duraflow.api.state;

/**
 * Where a keyed function gets its state. Each call with the same descriptor returns the same
 * state; a second descriptor with the same name but another kind or serializer is an error.
 */
public interface KeyedStateStore {
    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);
}

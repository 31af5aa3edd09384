package io.duraflow.api.state;

import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;

/** A map per key. */
public record MapStateDescriptor<K, V>(String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer)
        implements StateDescriptor {
    public MapStateDescriptor {
        StateDescriptor.checkName(name);
        Objects.requireNonNull(keySerializer, "keySerializer");
        Objects.requireNonNull(valueSerializer, "valueSerializer");
    }

    @Override
    public String description() {
        return "map(" + keySerializer.description() + "," + valueSerializer.description() + ")";
    }
}

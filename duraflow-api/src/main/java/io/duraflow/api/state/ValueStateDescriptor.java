package io.duraflow.api.state;

import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;

/** A single value per key. */
public record ValueStateDescriptor<T>(String name, TypeSerializer<T> serializer) implements StateDescriptor {
    public ValueStateDescriptor {
        StateDescriptor.checkName(name);
        Objects.requireNonNull(serializer, "serializer");
    }

    @Override
    public String description() {
        return "value(" + serializer.description() + ")";
    }
}

package io.duraflow.api.state;

import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;

/** A list of values per key, or a list per parallel instance for operator state. */
public record ListStateDescriptor<T>(String name, TypeSerializer<T> elementSerializer) implements StateDescriptor {
    public ListStateDescriptor {
        StateDescriptor.checkName(name);
        Objects.requireNonNull(elementSerializer, "elementSerializer");
    }

    @Override
    public String description() {
        return "list(" + elementSerializer.description() + ")";
    }
}

package io.duraflow.api.state;

/**
 * Declares a state: its name, unique per operator, and how its values are written. The name and
 * {@link #description()} are stored in checkpoints, so a restored job finds its state by name and
 * refuses to read state written with another format.
 */
public sealed interface StateDescriptor permits ValueStateDescriptor, ListStateDescriptor, MapStateDescriptor {
    String name();

    /** The kind and serializers, e.g. {@code map(string,long)}; compared on restore. */
    String description();

    static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a state needs a non-empty name");
        }
        return name;
    }
}

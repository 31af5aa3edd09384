package io.duraflow.state.format;

import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.StateDescriptor;
import io.duraflow.api.state.ValueStateDescriptor;

/** The kinds of keyed state, with the byte that stands for each in snapshots. */
public enum StateKind {
    VALUE(1),
    LIST(2),
    MAP(3);

    private final int code;

    StateKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static StateKind of(StateDescriptor descriptor) {
        if (descriptor instanceof ValueStateDescriptor<?>) {
            return VALUE;
        }
        if (descriptor instanceof ListStateDescriptor<?>) {
            return LIST;
        }
        if (descriptor instanceof MapStateDescriptor<?, ?>) {
            return MAP;
        }
        throw new IllegalArgumentException("unknown state descriptor " + descriptor);
    }

    /** The kind with this code, or {@code null}. */
    public static StateKind ofCode(int code) {
        for (StateKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        return null;
    }
}

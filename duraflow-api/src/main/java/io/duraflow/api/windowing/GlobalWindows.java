package io.duraflow.api.windowing;

import io.duraflow.api.types.TypeSerializer;
import java.util.Collection;
import java.util.List;

/**
 * One window per key that holds all its records and never ends. Its default trigger never fires:
 * give it one, such as {@link CountTrigger}, with {@code trigger(...)}.
 */
public final class GlobalWindows<T> extends WindowAssigner<T, GlobalWindow> {
    private static final List<GlobalWindow> ONLY = List.of(GlobalWindow.INSTANCE);

    private GlobalWindows() {}

    public static <T> GlobalWindows<T> create() {
        return new GlobalWindows<>();
    }

    @Override
    public Collection<GlobalWindow> assignWindows(T element, long timestamp) {
        return ONLY;
    }

    @Override
    public Trigger<GlobalWindow> defaultTrigger() {
        return new Trigger<>() {
            @Override
            public TriggerResult onElement(long timestamp, GlobalWindow window, TriggerContext context) {
                return TriggerResult.CONTINUE;
            }

            @Override
            public String description() {
                return "NeverTrigger";
            }
        };
    }

    @Override
    public TypeSerializer<GlobalWindow> windowSerializer() {
        return GlobalWindow.SERIALIZER;
    }

    @Override
    public boolean isEventTime() {
        return false;
    }

    @Override
    public String description() {
        return "GlobalWindows";
    }
}

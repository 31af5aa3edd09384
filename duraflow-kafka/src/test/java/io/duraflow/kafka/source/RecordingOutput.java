package io.duraflow.kafka.source;

import io.duraflow.api.source.ReaderOutput;
import java.util.ArrayList;
import java.util.List;

/** Keeps what a reader emits, with the split and the timestamp of each record. */
final class RecordingOutput<T> implements ReaderOutput<T> {
    record Emitted<T>(String splitId, T value, long timestamp) {}

    final List<Emitted<T>> emitted = new ArrayList<>();
    final List<String> released = new ArrayList<>();

    @Override
    public void collect(T record) {
        throw new AssertionError("a Kafka reader emits through its splits' outputs");
    }

    @Override
    public void collect(T record, long timestamp) {
        throw new AssertionError("a Kafka reader emits through its splits' outputs");
    }

    @Override
    public SplitOutput<T> forSplit(String splitId) {
        return new SplitOutput<>() {
            @Override
            public void collect(T record) {
                throw new AssertionError("a Kafka reader gives every record its timestamp");
            }

            @Override
            public void collect(T record, long timestamp) {
                emitted.add(new Emitted<>(splitId, record, timestamp));
            }
        };
    }

    @Override
    public void releaseSplit(String splitId) {
        released.add(splitId);
    }

    List<T> values() {
        List<T> values = new ArrayList<>();
        emitted.forEach(e -> values.add(e.value()));
        return values;
    }
}

package io.duraflow.api.functions;

import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;

/**
 * Names a side output: a second stream of records, of its own type, that a function emits beside
 * its main output ({@code context.output(tag, value)}) and that the job reads with {@code
 * flow.sideOutput(tag)}. Two tags are the same side output when their ids are equal; the id is
 * part of the job's plan, so keep it stable across versions of a job.
 *
 * @param <T> the type of the side output's records
 */
public final class OutputTag<T> {
    private final String id;
    private final TypeSerializer<T> type;

    public OutputTag(String id, TypeSerializer<T> type) {
        if (id == null || id.isBlank() || id.length() > 128) {
            throw new IllegalArgumentException("a side output's id must be 1 to 128 characters, not blank; got '"
                    + id + "'");
        }
        this.id = id;
        this.type = Objects.requireNonNull(type, "type");
    }

    public String id() {
        return id;
    }

    public TypeSerializer<T> type() {
        return type;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OutputTag<?> tag && tag.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "OutputTag(" + id + ", " + type.description() + ")";
    }
}

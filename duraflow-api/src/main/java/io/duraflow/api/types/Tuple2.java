package io.duraflow.api.types;

/** An immutable pair. */
public record Tuple2<A, B>(A f0, B f1) {
    public static <A, B> Tuple2<A, B> of(A f0, B f1) {
        return new Tuple2<>(f0, f1);
    }

    // Written out: a record's generated equals and hashCode go through method handles that the JIT
    // does not always inline, and tuples are often keys.
    @Override
    public boolean equals(Object other) {
        return other instanceof Tuple2<?, ?> tuple && java.util.Objects.equals(f0, tuple.f0)
                && java.util.Objects.equals(f1, tuple.f1);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Objects.hashCode(f0) + java.util.Objects.hashCode(f1);
    }

    @Override
    public String toString() {
        return "(" + f0 + "," + f1 + ")";
    }
}

package io.duraflow.api.types;

/** An immutable pair. */
public record Tuple2<A, B>(A f0, B f1) {
    public static <A, B> Tuple2<A, B> of(A f0, B f1) {
        return new Tuple2<>(f0, f1);
    }

    @Override
    public String toString() {
        return "(" + f0 + "," + f1 + ")";
    }
}

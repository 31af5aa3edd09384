package io.duraflow.jobmanager.recovery;

import java.util.Arrays;

/**
 * A job vertex's decided parallelism and input ranges, as its last {@code VertexInitialized}
 * event recorded them: subtask {@code i} reads subpartitions {@code [rangeBounds[i],
 * rangeBounds[i + 1])}.
 *
 * <p>The array is copied in and out, so a plan cannot be changed through it.
 */
public record VertexPlan(int vertex, int parallelism, int[] rangeBounds) {

    public VertexPlan {
        rangeBounds = rangeBounds.clone();
    }

    @Override
    public int[] rangeBounds() {
        return rangeBounds.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VertexPlan other && vertex == other.vertex && parallelism == other.parallelism
                && Arrays.equals(rangeBounds, other.rangeBounds);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * vertex + parallelism) + Arrays.hashCode(rangeBounds);
    }

    @Override
    public String toString() {
        return "VertexPlan[vertex=" + vertex + ", parallelism=" + parallelism + ", rangeBounds="
                + Arrays.toString(rangeBounds) + "]";
    }
}

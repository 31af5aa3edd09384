package io.duraflow.jobmanager.store;

import java.util.Objects;

/**
 * What one vertex of a finished job did.
 *
 * @param id the vertex id in the job graph
 * @param parallelism number of subtasks; 0 if the vertex never got that far
 * @param recordsIn records all subtasks read, summed over the successful attempts
 * @param recordsOut records all subtasks wrote, summed over the successful attempts
 * @param attempts task runs started, retries included
 */
public record VertexSummary(int id, String name, int parallelism, long recordsIn, long recordsOut, int attempts) {
    public VertexSummary {
        Objects.requireNonNull(name, "name");
        if (parallelism < 0 || attempts < 0) {
            throw new IllegalArgumentException("vertex " + id + ": parallelism " + parallelism
                    + " and attempts " + attempts + " must not be negative");
        }
    }
}

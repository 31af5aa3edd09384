package io.duraflow.jobstore;

import java.util.List;
import java.util.Objects;

/**
 * What one vertex of a finished job did.
 *
 * @param id the vertex id in the job graph
 * @param parallelism number of subtasks; 0 if the vertex never got that far
 * @param recordsIn records all subtasks read, summed over the successful attempts
 * @param recordsOut records all subtasks wrote, summed over the successful attempts
 * @param attempts task runs started, retries included
 * @param taskAttempts per subtask, the number of its last attempt (0: it ran once); empty in
 *     results written before this was recorded
 */
public record VertexSummary(int id, String name, int parallelism, long recordsIn, long recordsOut, int attempts,
        List<Integer> taskAttempts) {
    public VertexSummary {
        Objects.requireNonNull(name, "name");
        taskAttempts = List.copyOf(Objects.requireNonNull(taskAttempts, "taskAttempts"));
        if (parallelism < 0 || attempts < 0) {
            throw new IllegalArgumentException("vertex " + id + ": parallelism " + parallelism
                    + " and attempts " + attempts + " must not be negative");
        }
        if (!taskAttempts.isEmpty() && taskAttempts.size() != parallelism) {
            throw new IllegalArgumentException("vertex " + id + ": " + taskAttempts.size()
                    + " task attempts for parallelism " + parallelism);
        }
    }
}

package io.duraflow.jobstore;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The result of a job that reached a terminal state: what the {@link JobResultStore} keeps so
 * that a client can read it later and a new leader never runs the job again.
 *
 * <p>Immutable: maps and lists are copied (maps sorted by key), and {@link CollectedData} copies
 * its bytes. {@link #equals} compares everything by content, collected bytes included.
 *
 * @param jobId the job's id, unique within a cluster (see {@link JobIds})
 * @param jobName the name the job gave itself, or {@code ""}
 * @param jobClass the class of the submitted job, or {@code ""}
 * @param state how the job ended
 * @param submittedAtMs when the job was submitted, in epoch milliseconds
 * @param endedAtMs when the job reached its terminal state, in epoch milliseconds
 * @param failure a one-line cause if the job failed or its result is {@link JobOutcome#UNKNOWN}, else {@code ""}
 * @param restarts how often the job restarted after failures
 * @param params the job's parameters
 * @param counters the job's user counters, summed over all subtasks
 * @param vertices one summary per vertex, in graph order
 * @param collected the data collect sinks sent back to the client
 */
public record JobResultEntry(String jobId, String jobName, String jobClass, JobOutcome state, long submittedAtMs,
        long endedAtMs, String failure, int restarts, Map<String, String> params, Map<String, Long> counters,
        List<VertexSummary> vertices, List<CollectedData> collected) {

    public JobResultEntry {
        JobIds.requireValid(jobId);
        Objects.requireNonNull(jobName, "jobName");
        Objects.requireNonNull(jobClass, "jobClass");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(failure, "failure; use \"\" for none");
        if (restarts < 0) {
            throw new IllegalArgumentException("job " + jobId + ": restarts " + restarts + " must not be negative");
        }
        params = sortedCopy(params, "params");
        counters = sortedCopy(counters, "counters");
        vertices = List.copyOf(Objects.requireNonNull(vertices, "vertices"));
        collected = List.copyOf(Objects.requireNonNull(collected, "collected"));
    }

    /**
     * The entry for a job whose result is lost: state {@link JobOutcome#UNKNOWN}, times 0, no data.
     *
     * @param failure what happened to the result, e.g. {@code corrupt job result file ...}
     */
    public static JobResultEntry unknown(String jobId, String failure) {
        return new JobResultEntry(jobId, "", "", JobOutcome.UNKNOWN, 0, 0, failure, 0, Map.of(), Map.of(),
                List.of(), List.of());
    }

    static <V> Map<String, V> sortedCopy(Map<String, V> map, String what) {
        Objects.requireNonNull(map, what);
        TreeMap<String, V> copy = new TreeMap<>();
        map.forEach((key, value) -> copy.put(Objects.requireNonNull(key, () -> "key in " + what),
                Objects.requireNonNull(value, () -> what + " value of '" + key + "'")));
        return Collections.unmodifiableMap(copy);
    }
}

package io.duraflow.test;

import io.duraflow.client.CollectedResults;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import java.util.List;
import java.util.Map;

/**
 * How a job ended on a {@link DuraflowCluster}: its state, its failure cause, and the records it
 * collected ({@code flow.collect(name)}), decoded with the job's own serializers.
 */
public final class JobOutcome {
    private final JobResult result;
    private final Map<String, List<Object>> collected;

    JobOutcome(JobResult result, JobGraph graph) {
        this.result = result;
        this.collected = CollectedResults.decode(result, graph);
    }

    public String jobId() {
        return result.getStatus().getJobId();
    }

    /** FINISHED, FAILED or CANCELED. */
    public String state() {
        return result.getStatus().getState().name().replace("JOB_", "");
    }

    public boolean finished() {
        return result.getStatus().getState() == JobState.JOB_FINISHED;
    }

    /** Why the job failed; empty if it did not. */
    public String failure() {
        return result.getStatus().getFailure();
    }

    /** How often the job restarted after failures. */
    public int restarts() {
        return result.getStatus().getRestarts();
    }

    /** The records collected under {@code name}, in the order they arrived; empty if none. */
    @SuppressWarnings("unchecked")
    public <T> List<T> collected(String name) {
        return (List<T>) (List<?>) collected.getOrDefault(name, List.of());
    }

    /** The job's counters by name (records read, written, ...). */
    public Map<String, Long> counters() {
        return result.getCountersMap();
    }

    @Override
    public String toString() {
        return "job " + jobId() + " " + state() + (failure().isEmpty() ? "" : ": " + failure());
    }
}

package io.duraflow.jobmanager.dispatcher;

import com.google.protobuf.ByteString;
import io.duraflow.jobstore.CollectedData;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.VertexSummary;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Converts between the wire form of a job's result and its job result store entry. */
final class JobResults {
    private JobResults() {}

    static JobResultEntry toEntry(JobStatus status, List<CollectedResult> collected, Map<String, String> params) {
        List<VertexSummary> vertices = new ArrayList<>();
        for (VertexStatus v : status.getVerticesList()) {
            List<Integer> taskAttempts = new ArrayList<>();
            v.getTasksList().forEach(task -> taskAttempts.add(task.getAttempt()));
            vertices.add(new VertexSummary(v.getId(), v.getName(), v.getParallelism(), v.getRecordsIn(),
                    v.getRecordsOut(), v.getAttempts(), taskAttempts));
        }
        List<CollectedData> data = new ArrayList<>();
        for (CollectedResult c : collected) {
            data.add(new CollectedData(c.getName(), c.getSubtask(), c.getRecords(), c.getData().toByteArray()));
        }
        return new JobResultEntry(status.getJobId(), status.getJobName(), status.getJobClass(), outcome(status.getState()),
                status.getSubmittedAtMs(), status.getEndedAtMs(), status.getFailure(), status.getRestarts(), params,
                Map.of(), vertices, data);
    }

    static JobOutcome outcome(JobState state) {
        return switch (state) {
            case JOB_FINISHED -> JobOutcome.FINISHED;
            case JOB_FAILED -> JobOutcome.FAILED;
            case JOB_CANCELED -> JobOutcome.CANCELED;
            default -> throw new IllegalArgumentException("job state " + state + " is not terminal");
        };
    }

    static JobState state(JobOutcome outcome) {
        return switch (outcome) {
            case FINISHED -> JobState.JOB_FINISHED;
            case FAILED -> JobState.JOB_FAILED;
            case CANCELED -> JobState.JOB_CANCELED;
            case UNKNOWN -> JobState.JOB_FAILED;
        };
    }

    static JobStatus toStatus(JobResultEntry entry) {
        JobStatus.Builder status = JobStatus.newBuilder().setJobId(entry.jobId()).setJobName(entry.jobName())
                .setJobClass(entry.jobClass()).setState(state(entry.state())).setSubmittedAtMs(entry.submittedAtMs())
                .setEndedAtMs(entry.endedAtMs()).setRestarts(entry.restarts())
                .setResultUnreadable(entry.state() == JobOutcome.UNKNOWN)
                .setFailure(entry.state() != JobOutcome.UNKNOWN ? entry.failure()
                        : "the job ended, but its stored result is unreadable"
                                + (entry.failure().isEmpty() ? "" : ": " + entry.failure()));
        for (VertexSummary v : entry.vertices()) {
            VertexStatus.Builder vertex = VertexStatus.newBuilder().setId(v.id()).setName(v.name())
                    .setParallelism(v.parallelism()).setFinished(entry.state() == JobOutcome.FINISHED ? v.parallelism() : 0)
                    .setRecordsIn(v.recordsIn()).setRecordsOut(v.recordsOut()).setAttempts(v.attempts());
            // Only the attempt numbers are kept; a finished job's tasks all finished.
            String taskState = entry.state() == JobOutcome.FINISHED ? "FINISHED" : "";
            v.taskAttempts().forEach(attempt -> vertex.addTasks(TaskStatus.newBuilder().setAttempt(attempt)
                    .setState(taskState)));
            status.addVertices(vertex);
        }
        return status.build();
    }

    static JobResult toResult(JobResultEntry entry) {
        JobResult.Builder result = JobResult.newBuilder().setStatus(toStatus(entry)).putAllParams(entry.params())
                .putAllCounters(entry.counters());
        for (CollectedData c : entry.collected()) {
            result.addCollected(CollectedResult.newBuilder().setName(c.name()).setSubtask(c.subtask())
                    .setRecords(c.records()).setData(ByteString.copyFrom(c.data())));
        }
        return result.build();
    }
}

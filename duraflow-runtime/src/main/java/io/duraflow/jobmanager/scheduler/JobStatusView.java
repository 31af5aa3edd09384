package io.duraflow.jobmanager.scheduler;

import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;

/**
 * What clients see of a job master: the one place where its state becomes the protobuf one. A
 * vertex's records in and out are those of its finished subtasks plus, for running streaming
 * subtasks, their counters as of their last heartbeat sample ({@link TaskRates}).
 */
final class JobStatusView {
    private JobStatusView() {}

    static JobStatus of(JobMaster job, ExecutionGraph executions) {
        JobStatus.Builder status = JobStatus.newBuilder().setJobId(job.jobId()).setJobName(job.graph().jobName())
                .setState(job.state().toProto()).setSubmittedAtMs(job.submittedAtMs()).setEndedAtMs(job.endedAtMs())
                .setFailure(job.failure()).setRestarts(job.restarts()).setJobClass(job.jobClass())
                .setRestoredTasks(job.restoredTasks());
        for (JobVertex vertex : job.graph().vertices()) {
            VertexStatus.Builder v = VertexStatus.newBuilder().setId(vertex.id()).setName(vertex.name());
            Execution[] subtasks = executions.executions(vertex.id());
            if (subtasks != null) {
                v.setParallelism(subtasks.length);
                for (Execution execution : subtasks) {
                    if (execution.state() == ExecutionState.FINISHED) {
                        v.setFinished(v.getFinished() + 1);
                        v.setRecordsIn(v.getRecordsIn() + execution.recordsIn());
                        v.setRecordsOut(v.getRecordsOut() + execution.recordsOut());
                    } else if (execution.state().isActive()) {
                        v.setRunning(v.getRunning() + 1);
                        TaskMetricsSample sample = job.taskRates().latest(vertex.id(), execution.subtask(),
                                execution.attempt());
                        if (sample != null) {
                            v.setRecordsIn(v.getRecordsIn() + sample.getRecordsIn());
                            v.setRecordsOut(v.getRecordsOut() + sample.getRecordsOut());
                        }
                    }
                    v.setAttempts(v.getAttempts() + execution.attemptsStarted());
                    v.addTasks(TaskStatus.newBuilder().setAttempt(execution.attempt())
                            .setState(execution.state().name())
                            .setTmId(execution.tmId() == null ? "" : execution.tmId()));
                }
            }
            var rates = job.taskRates().vertexRates(vertex.id(), subtasks);
            if (rates != null) {
                v.setRates(rates);
            }
            status.addVertices(v);
        }
        return status.build();
    }
}

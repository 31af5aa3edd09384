package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexInput;
import io.duraflow.rpc.proto.VertexRates;
import io.duraflow.rpc.proto.VertexStatus;

/**
 * What clients see of a job master: the one place where its state becomes the protobuf one (the
 * CLI's {@code status} and the REST API's job detail both show this). A vertex's records in and
 * out are those of its finished subtasks plus, for running streaming subtasks, their counters as
 * of their last heartbeat sample ({@link TaskRates}); each subtask shows its own the same way.
 */
final class JobStatusView {
    private JobStatusView() {}

    static JobStatus of(JobContext job, int restarts, TaskRates taskRates) {
        ExecutionGraph executions = job.executions();
        LeaderTakeover takeover = job.takeover();
        JobStatus.Builder status = JobStatus.newBuilder().setJobId(job.jobId()).setJobName(job.graph().jobName())
                .setState(job.state().toProto()).setSubmittedAtMs(job.definition().submittedAtMs())
                .setEndedAtMs(job.endedAtMs()).setFailure(job.failure()).setRestarts(restarts)
                .setJobClass(job.definition().jobClass()).setRestoredTasks(takeover.restoredTasks())
                .setTakenOverAtMs(takeover.takenOverAtMs())
                .setLeaderElectedAtMs(takeover.takenOverAtMs() == 0 ? 0 : takeover.leaderElectedAtMs())
                .setMode(job.graph().mode().name());
        if (job.definition().jar() != null) {
            status.setArtifact(job.definition().jar());
        }
        String waitingFor = job.isRunning() ? job.scheduling().waitingFor() : null;
        if (waitingFor != null) {
            status.setWaitingFor("the job " + waitingFor);
        }
        for (JobVertex vertex : job.graph().vertices()) {
            VertexStatus.Builder v = VertexStatus.newBuilder().setId(vertex.id()).setName(vertex.name());
            for (int edgeId : vertex.inputs()) {
                ExchangeEdge edge = job.graph().edge(edgeId);
                v.addInputs(VertexInput.newBuilder().setProducer(edge.producer()).setMode(edge.mode().name())
                        .setStrategy(edge.strategy().name()));
            }
            Execution[] subtasks = executions.executions(vertex.id());
            if (subtasks != null) {
                v.setParallelism(subtasks.length);
                for (Execution execution : subtasks) {
                    TaskStatus.Builder task = TaskStatus.newBuilder().setAttempt(execution.attempt())
                            .setState(execution.state().name())
                            .setTmId(execution.tmId() == null ? "" : execution.tmId())
                            .setAttemptsStarted(execution.attemptsStarted())
                            .setRecovery(execution.recovery() == Execution.Recovery.NONE ? ""
                                    : execution.recovery().name());
                    if (execution.state() == ExecutionState.FINISHED) {
                        v.setFinished(v.getFinished() + 1);
                        task.setRecordsIn(execution.recordsIn()).setRecordsOut(execution.recordsOut());
                    } else if (execution.state().isActive()) {
                        v.setRunning(v.getRunning() + 1);
                        TaskMetricsSample sample = taskRates.latest(vertex.id(), execution.subtask(),
                                execution.attempt());
                        if (sample != null) {
                            task.setRecordsIn(sample.getRecordsIn()).setRecordsOut(sample.getRecordsOut());
                        }
                        TaskRates.Rate rate = execution.state() == ExecutionState.RUNNING
                                ? taskRates.rate(vertex.id(), execution.subtask(), execution.attempt()) : null;
                        if (rate != null) {
                            task.setRates(VertexRates.newBuilder().setRecordsInPerSecond(rate.recordsInPerSecond())
                                    .setRecordsOutPerSecond(rate.recordsOutPerSecond())
                                    .setBusyMsPerSecond(rate.busyMsPerSecond())
                                    .setBackpressuredMsPerSecond(rate.backpressuredMsPerSecond())
                                    .setIdleMsPerSecond(rate.idleMsPerSecond()).setSubtasks(1));
                        }
                    }
                    v.setRecordsIn(v.getRecordsIn() + task.getRecordsIn());
                    v.setRecordsOut(v.getRecordsOut() + task.getRecordsOut());
                    v.setAttempts(v.getAttempts() + execution.attemptsStarted());
                    v.addTasks(task);
                }
            }
            var rates = taskRates.vertexRates(vertex.id(), subtasks);
            if (rates != null) {
                v.setRates(rates);
            }
            status.addVertices(v);
        }
        return status.build();
    }
}

package io.duraflow.jobmanager.dispatcher;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventFormatter;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskManagerInfo;
import java.util.HashMap;
import java.util.Map;
import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobstore.JobIds;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobEventLogStatus;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.rpc.proto.ExecutionAttempt;
import io.duraflow.rpc.proto.JobEventEntry;
import io.duraflow.rpc.proto.JobEvents;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

/**
 * Answers questions about jobs: from memory while a job runs or its result is recent, else from
 * the job result store (read on an I/O thread). A job shows as RUNNING until its result is
 * durable, so nobody sees an outcome that a JobManager crash could still change.
 */
final class JobQueries {
    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    /** Running jobs' statuses for queries that need not wait for the main thread. */
    private final PublishedStatuses published;

    JobQueries(Dispatcher.Services services, JobRegistry registry, JobFactory factory, Mailbox mainThread,
            LongSupplier clock) {
        this.services = services;
        this.clock = clock;
        this.registry = registry;
        this.factory = factory;
        this.published = new PublishedStatuses(System::nanoTime, jobId -> mainThread.execute(() -> refresh(jobId)));
        this.mainThread = mainThread;
    }

    CompletableFuture<JobStatus> status(String jobId) {
        requireValid(jobId);
        JobMaster job = registry.job(jobId);
        if (job != null) {
            JobStatus status = runningStatus(job);
            publishOrForget(jobId, job, status);
            return CompletableFuture.completedFuture(status);
        }
        published.forget(jobId);
        JobStatus last = registry.finalStatus(jobId);
        if (last != null) {
            return CompletableFuture.completedFuture(last);
        }
        return knownResult(jobId, false).thenApply(JobResults::toStatus);
    }

    /** Main thread: a query found the published status of a job aging (no result store read here). */
    private void refresh(String jobId) {
        JobMaster job = registry.job(jobId);
        if (job == null) {
            published.forget(jobId);
        } else {
            publishOrForget(jobId, job, runningStatus(job));
        }
    }

    private void publishOrForget(String jobId, JobMaster job, JobStatus status) {
        if (job.isTerminal()) {
            published.forget(jobId);
        } else {
            // Main thread: nothing changes between building the status and reading the count.
            published.publish(jobId, status, job.statusChangeCounter().getAsLong(), job.statusChangeCounter());
        }
    }

    /** Main thread: the job's result is durable; it is no longer served from a published status. */
    void forget(String jobId) {
        published.forget(jobId);
    }

    /**
     * Any thread: the status of a running job as {@link #status} last built it, if it is still
     * current ({@link PublishedStatuses}'s rules), else null (ask {@link #status} on the main thread).
     */
    JobStatus publishedStatus(String jobId) {
        return published.current(jobId);
    }

    /** The leader stops: no published status is served any more. */
    void close() {
        published.close();
    }

    CompletableFuture<JobResult> result(String jobId) {
        requireValid(jobId);
        JobMaster job = registry.job(jobId);
        if (job != null) {
            return CompletableFuture.completedFuture(JobResult.newBuilder().setStatus(runningStatus(job))
                    .putAllParams(job.params()).build());
        }
        JobStatus last = registry.finalStatus(jobId);
        return knownResult(jobId, true).thenApply(entry -> {
            JobResult result = JobResults.toResult(entry);
            return last == null ? result : result.toBuilder().setStatus(last).build();
        });
    }

    /** A running job's status; a job that ended shows RUNNING until its result is durable. */
    private JobStatus runningStatus(JobMaster job) {
        JobStatus status = job.status();
        if (job.isTerminal()) {
            return status.toBuilder().setState(JobState.JOB_RUNNING).setEndedAtMs(0).build();
        }
        if (status.getState() == JobState.JOB_CREATED) {
            // A job this leader took over and is still recovering (waiting for the TaskManagers
            // that hold its output): to its user it is running, as it was before the failover.
            status = status.toBuilder().setState(JobState.JOB_RUNNING).build();
        }
        var writer = registry.eventWriter(job.jobId());
        if (writer != null) {
            status = status.toBuilder().setEventLog(JobEventLogStatus.newBuilder()
                    .setWrittenEvents(writer.writtenEvents()).setDroppedEvents(writer.droppedEvents())
                    .setStoppedCause(writer.disabledCause())).build();
        }
        return status;
    }

    /**
     * The result from memory if it is there whole (or a summary will do), else from the store.
     * A summary is the answer of last resort when the store no longer has the entry (deleted on
     * commit): the collected records are gone then.
     */
    private CompletableFuture<JobResultEntry> knownResult(String jobId, boolean wantCollected) {
        Optional<JobResultEntry> inMemory = registry.result(jobId);
        if (inMemory.isPresent() && (!wantCollected || registry.hasWholeResult(jobId))) {
            return CompletableFuture.completedFuture(inMemory.get());
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return services.results().getResult(jobId);
            } catch (IOException e) {
                throw new CompletionException(Status.UNAVAILABLE.withDescription("cannot read the job result store: "
                        + Dispatcher.describe(e)).asRuntimeException());
            }
        }, services.io()).thenApplyAsync(stored -> {
            if (stored.isPresent()) {
                registry.rememberSummary(stored.get());
                return stored.get();
            }
            return registry.result(jobId).orElseThrow(() -> Status.NOT_FOUND
                    .withDescription("no job with id '" + jobId + "'; 'duraflow list' shows the jobs")
                    .asRuntimeException());
        }, mainThread);
    }

    /** Running jobs, then the results this leader remembers, newest last. */
    List<JobStatus> list() {
        List<JobStatus> statuses = new ArrayList<>();
        for (JobMaster job : registry.jobs()) {
            statuses.add(runningStatus(job));
        }
        for (JobResultEntry entry : registry.results()) {
            JobStatus last = registry.finalStatus(entry.jobId());
            statuses.add(last != null ? last : JobResults.toStatus(entry));
        }
        return statuses;
    }

    /**
     * The TaskManagers, each with the finished result partitions of running jobs that this leader
     * knows are there (batch exchanges; kept ones of a job taken over included) and their bytes.
     */
    List<TaskManagerInfo> withPartitions(List<TaskManagerInfo> taskManagers) {
        Map<String, long[]> held = new HashMap<>();
        for (JobMaster job : registry.jobs()) {
            for (JobVertex vertex : job.graph().vertices()) {
                Execution[] subtasks = job.executions(vertex.id());
                for (Execution execution : subtasks == null ? new Execution[0] : subtasks) {
                    if (execution.state() != ExecutionState.FINISHED || execution.tmId() == null) {
                        continue;
                    }
                    for (SubpartitionSizes partition : execution.outputs()) {
                        long[] sum = held.computeIfAbsent(execution.tmId(), id -> new long[2]);
                        sum[0]++;
                        for (long bytes : partition.getBytesList()) {
                            sum[1] += bytes;
                        }
                    }
                }
            }
        }
        List<TaskManagerInfo> described = new ArrayList<>(taskManagers.size());
        for (TaskManagerInfo tm : taskManagers) {
            long[] sum = held.getOrDefault(tm.getTmId(), new long[2]);
            described.add(tm.toBuilder().setPartitions((int) sum[0]).setPartitionBytes(sum[1]).build());
        }
        return described;
    }

    int runningJobs() {
        int running = 0;
        for (JobMaster job : registry.jobs()) {
            if (!job.isTerminal()) {
                running++;
            }
        }
        return running;
    }

    /** The job's event log in readable form, read from storage. */
    CompletableFuture<JobEvents> events(String jobId) {
        requireValid(jobId);
        FsPath directory = factory.eventLogDirectory(jobId);
        FileSystem fileSystem = factory.jobDirectories().fileSystem();
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (!fileSystem.exists(directory)) {
                    throw new CompletionException(Status.NOT_FOUND.withDescription("no event log for job '" + jobId
                            + "' (the job is unknown, job recovery is off, or its data was cleaned up)")
                            .asRuntimeException());
                }
                var read = JobEventReader.readAsRecorded(fileSystem, directory);
                var events = JobEvents.newBuilder().addAllWarnings(read.warnings());
                for (var event : read.events()) {
                    events.addLines(JobEventFormatter.format(event));
                    events.addEntries(entry(event));
                }
                return events.build();
            } catch (IOException e) {
                throw new CompletionException(Status.DATA_LOSS.withDescription(Dispatcher.describe(e))
                        .asRuntimeException());
            }
        }, services.io());
    }

    /** One event as data: its kind, its line without the time, the executions it names. */
    static JobEventEntry entry(JobEvent event) {
        JobEventEntry.Builder entry = JobEventEntry.newBuilder().setTimestampMs(event.getTimestampMs())
                .setKind(event.getEventCase().name()).setText(JobEventFormatter.describe(event));
        switch (event.getEventCase()) {
            case EXECUTION_FINISHED -> {
                var finished = event.getExecutionFinished();
                entry.addExecutions(ExecutionAttempt.newBuilder().setVertex(finished.getVertex())
                        .setSubtask(finished.getSubtask()).setAttempt(finished.getAttempt())
                        .setTmId(finished.getTmId()));
            }
            case EXECUTIONS_RESET -> {
                entry.setReason(event.getExecutionsReset().getReason());
                for (var ref : event.getExecutionsReset().getExecutionsList()) {
                    entry.addExecutions(ExecutionAttempt.newBuilder().setVertex(ref.getVertex())
                            .setSubtask(ref.getSubtask()).setAttempt(ref.getNewAttempt()));
                }
            }
            case RUN_STARTED -> entry.setReason(event.getRunStarted().getReason());
            default -> { }
        }
        return entry.build();
    }

    /**
     * A running job's checkpoints from its coordinator. A job without one (batch, checkpointing
     * off) or whose JobMaster is gone (it ended) is a failed precondition that says so.
     */
    CompletableFuture<JobCheckpoints> checkpoints(String jobId) {
        requireValid(jobId);
        JobMaster job = registry.job(jobId);
        if (job == null) {
            return knownResult(jobId, false).thenApply(entry -> {
                throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " has ended ("
                        + entry.state() + "): its checkpoint statistics"
                        + " ended with it; 'duraflow result " + jobId + "' shows its result").asRuntimeException();
            });
        }
        if (job.graph().mode() != RuntimeMode.STREAMING) {
            throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " is a batch job: it takes no checkpoints")
                    .asRuntimeException();
        }
        CheckpointCoordinator coordinator = job.checkpointCoordinator();
        if (coordinator == null) {
            throw Status.FAILED_PRECONDITION.withDescription("job " + jobId + " runs with checkpointing off: set"
                    + " execution.checkpointing.interval and execution.checkpointing.dir in its configuration to take"
                    + " checkpoints").asRuntimeException();
        }
        return CompletableFuture.completedFuture(CheckpointReports.toProto(jobId, coordinator.overview(),
                clock.getAsLong()));
    }

    static void requireValid(String jobId) {
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId + "'").asRuntimeException();
        }
    }
}

package io.duraflow.jobmanager;

import io.duraflow.jobmanager.resourcemanager.TaskManagerAddresses;
import io.duraflow.mailbox.ThreadMailbox;

import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobList;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.duraflow.util.Futures;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's gRPC endpoints. Every handler hops onto the main thread and answers from
 * there; no state is touched on gRPC threads.
 */
final class JobManagerServices {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerServices.class);

    private JobManagerServices() {}

    static <T> void answer(ThreadMailbox mainThread, StreamObserver<T> response, Callable<T> call) {
        answerAsync(mainThread, response, () -> CompletableFuture.completedFuture(call.call()));
    }

    /** Runs {@code call} on the main thread and answers when the future it returns completes. */
    static <T> void answerAsync(ThreadMailbox mainThread, StreamObserver<T> response,
            Callable<CompletableFuture<T>> call) {
        mainThread.call(call).thenCompose(future -> future).whenComplete((value, failure) -> {
            Throwable error = failure == null ? null : Futures.unwrap(failure);
            if (error == null) {
                response.onNext(value);
                response.onCompleted();
            } else if (error instanceof StatusRuntimeException status) {
                response.onError(status);
            } else {
                LOG.error("Request failed on the main thread", error);
                response.onError(io.duraflow.rpc.Rpc.internalError(error));
            }
        });
    }

    /** How long a registering TaskManager's address may take to accept a connection. */
    static final long ADDRESS_CHECK_TIMEOUT_MS = 2_000;

    /** What TaskManagers call. */
    static final class TaskManagerFacing extends JobManagerGatewayGrpc.JobManagerGatewayImplBase {
        private final JobManagerRunner runner;

        TaskManagerFacing(JobManagerRunner runner) {
            this.runner = runner;
        }

        @Override
        public void registerTaskManager(RegisterTaskManagerRequest request,
                StreamObserver<RegisterTaskManagerResponse> response) {
            // Off the main thread: checking that the advertised address answers takes a round trip.
            LOG.info("TaskManager {} at {} asks to register", request.getTmId(), request.getAddress());
            try {
                TaskManagerAddresses.check(request.getTmId(), request.getAddress(), ADDRESS_CHECK_TIMEOUT_MS);
            } catch (StatusRuntimeException e) {
                response.onError(e);
                return;
            }
            answerAsync(runner.mainThread(), response, () -> {
                String session = runner.sessionId();
                // Answered only once the finishes it carried from earlier leaders are durable: the
                // answer acknowledges them, and the TaskManager then forgets them.
                return runner.dispatcher().registerTaskManager(request).thenApply(registered ->
                        RegisterTaskManagerResponse.newBuilder().setJmSessionId(session)
                                .setHeartbeatIntervalMs(runner.heartbeatIntervalMs())
                                .setHeartbeatTimeoutMs(runner.heartbeatTimeoutMs()).build());
            });
        }

        @Override
        public void fetchArtifact(io.duraflow.rpc.proto.FetchArtifactRequest request,
                StreamObserver<io.duraflow.rpc.proto.ArtifactChunk> response) {
            // On the gRPC thread: a read of the HA storage, which any leader's sessions share.
            JobJarTransfers.download(runner.jobDirectories(), request, response);
        }

        @Override
        public void heartbeat(TaskManagerHeartbeat request, StreamObserver<JobManagerHeartbeat> response) {
            answer(runner.mainThread(), response, () -> {
                boolean known = request.getJmSessionId().equals(runner.sessionId())
                        && runner.resourceManager().heartbeat(request);
                JobManagerHeartbeat.Builder answer = JobManagerHeartbeat.newBuilder().setRegistered(known);
                // Final reports whose own call was lost take the normal path; the job master
                // ignores one of an attempt it already has as ended, so a repeat does no harm.
                java.util.List<io.duraflow.rpc.proto.AttemptId> running = new java.util.ArrayList<>();
                for (var task : request.getTasksList()) {
                    if (!task.hasFinalReport()) {
                        running.add(task.getAttempt());
                    }
                    if (known && task.hasMetrics()) {
                        runner.dispatcher().onTaskMetrics(task.getAttempt(), task.getMetrics());
                    }
                    if (known && task.hasFinalReport()) {
                        suspectUnreachablePeer(task.getFinalReport());
                        runner.dispatcher().onTaskStateUpdate(task.getFinalReport());
                        answer.addAcknowledgedReports(task.getAttempt());
                    }
                }
                if (known) {
                    runner.dispatcher().onTasksRunning(request.getTmId(), running);
                }
                return answer.build();
            });
        }

        @Override
        public void updateTaskState(TaskStateUpdate request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                suspectUnreachablePeer(request);
                runner.dispatcher().onTaskStateUpdate(request);
                return Ack.getDefaultInstance();
            });
        }

        /**
         * A task that failed because it could not reach a peer TaskManager (its producer's, for a
         * pipelined or blocking input) names it: the resource manager probes that peer at once, so
         * that a dead one is lost in well under a second instead of after the heartbeat timeout.
         * Before the failure is handled, so that nothing the failure schedules goes to the peer.
         */
        private void suspectUnreachablePeer(TaskStateUpdate update) {
            if (!update.getUnreachableTmId().isEmpty() && update.getJmSessionId().equals(runner.sessionId())) {
                runner.resourceManager().suspect(update.getUnreachableTmId(), "task "
                        + io.duraflow.rpc.Rpc.describe(update.getAttempt()) + " on " + update.getTmId()
                        + " could not reach it at " + update.getUnreachableTmAddress());
            }
        }

        @Override
        public void sendOperatorEvent(OperatorEventFromTask request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                checkSession(request.getJmSessionId(), "operator event", request.getAttempt().getJobId());
                runner.dispatcher().onOperatorEvent(request);
                return Ack.getDefaultInstance();
            });
        }

        @Override
        public void acknowledgeCheckpoint(AcknowledgeCheckpointRequest request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                checkSession(request.getJmSessionId(), "acknowledgement of checkpoint " + request.getCheckpointId(),
                        request.getAttempt().getJobId());
                runner.dispatcher().acknowledgeCheckpoint(request);
                return Ack.getDefaultInstance();
            });
        }

        @Override
        public void declineCheckpoint(DeclineCheckpointRequest request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                checkSession(request.getJmSessionId(), "decline of checkpoint " + request.getCheckpointId(),
                        request.getAttempt().getJobId());
                runner.dispatcher().declineCheckpoint(request);
                return Ack.getDefaultInstance();
            });
        }

        @Override
        public void reportInputEnded(TaskInputEnded request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                checkSession(request.getJmSessionId(), "end of input", request.getAttempt().getJobId());
                runner.dispatcher().onInputEnded(request);
                return Ack.getDefaultInstance();
            });
        }

        /** Messages of tasks deployed by another leadership session are refused, as operator events are. */
        private void checkSession(String sessionId, String what, String jobId) {
            if (!sessionId.equals(runner.sessionId())) {
                throw Status.PERMISSION_DENIED.withDescription(what + " of " + jobId + " from JobManager session '"
                        + sessionId + "', but this JobManager leads session " + runner.sessionId())
                        .asRuntimeException();
            }
        }
    }

    /** What clients call. */
    static final class ClientFacing extends DispatcherGatewayGrpc.DispatcherGatewayImplBase {
        private final JobManagerRunner runner;

        ClientFacing(JobManagerRunner runner) {
            this.runner = runner;
        }

        @Override
        public void submitJob(SubmitJobRequest request, StreamObserver<SubmitJobResponse> response) {
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().submit(request));
        }

        @Override
        public StreamObserver<io.duraflow.rpc.proto.JarSubmission> submitJar(
                StreamObserver<SubmitJobResponse> response) {
            return JobJarTransfers.upload(runner, response);
        }

        @Override
        public void getJobStatus(JobIdRequest request, StreamObserver<JobStatus> response) {
            // A running job's status as the main thread last built it, while still current
            // (PublishedStatuses): no wait behind the reports of the job's tasks.
            JobStatus published = runner.publishedStatus(request.getJobId());
            if (published != null) {
                response.onNext(published);
                response.onCompleted();
                return;
            }
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().status(request.getJobId()));
        }

        @Override
        public void listJobs(Empty request, StreamObserver<JobList> response) {
            answer(runner.mainThread(), response,
                    () -> JobList.newBuilder().addAllJobs(runner.dispatcher().list()).build());
        }

        @Override
        public void cancelJob(JobIdRequest request, StreamObserver<Ack> response) {
            answer(runner.mainThread(), response, () -> {
                runner.dispatcher().cancel(request.getJobId());
                return Ack.getDefaultInstance();
            });
        }

        @Override
        public void getJobResult(JobIdRequest request, StreamObserver<JobResult> response) {
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().result(request.getJobId()));
        }

        @Override
        public void getJobEvents(JobIdRequest request, StreamObserver<io.duraflow.rpc.proto.JobEvents> response) {
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().events(request.getJobId()));
        }

        @Override
        public void getJobCheckpoints(JobIdRequest request,
                StreamObserver<io.duraflow.rpc.proto.JobCheckpoints> response) {
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().checkpoints(request.getJobId()));
        }

        @Override
        public void triggerSavepoint(io.duraflow.rpc.proto.TriggerSavepointRequest request,
                StreamObserver<io.duraflow.rpc.proto.TriggerSavepointResponse> response) {
            answerAsync(runner.mainThread(), response, () -> runner.dispatcher().triggerSavepoint(request));
        }

        @Override
        public void getClusterOverview(Empty request, StreamObserver<ClusterOverview> response) {
            answer(runner.mainThread(), response, () -> ClusterOverview.newBuilder()
                    .setJmSessionId(runner.sessionId())
                    .addAllTaskManagers(runner.dispatcher().withPartitions(runner.resourceManager().describe()))
                    .setRunningJobs(runner.dispatcher().runningJobs())
                    .setRestUrl(runner.restUrl()).setAddress(runner.address()).build());
        }
    }
}

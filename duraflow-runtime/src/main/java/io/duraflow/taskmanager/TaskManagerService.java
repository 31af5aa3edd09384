package io.duraflow.taskmanager;

import com.google.protobuf.UnsafeByteOperations;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.CancelTaskRequest;
import io.duraflow.rpc.proto.FetchPartitionRequest;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PartitionChunk;
import io.duraflow.rpc.proto.ReleasePartitionsRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.duraflow.exchange.blocking.FrameCursor;
import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.exchange.PartitionNotFoundException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TaskManager's gRPC endpoint: deployments and events from the JobManager, which the executor
 * handles and answers in its mailbox, and fetches from peers, which are served here on gRPC
 * threads because they only read published partitions (see {@link TaskExecutor#openPartition}).
 */
public final class TaskManagerService extends TaskManagerGatewayGrpc.TaskManagerGatewayImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerService.class);

    private final TaskExecutor executor;

    TaskManagerService(TaskExecutor executor) {
        this.executor = executor;
    }

    @Override
    public void deployTask(TaskDeployment request, StreamObserver<Ack> response) {
        executor.deploy(request, reply(response));
    }

    @Override
    public void cancelTask(CancelTaskRequest request, StreamObserver<Ack> response) {
        executor.cancel(request.getJmSessionId(), request.getAttempt(), reply(response));
    }

    @Override
    public void sendOperatorEvent(OperatorEventToTask request, StreamObserver<Ack> response) {
        executor.deliver(request, reply(response));
    }

    @Override
    public void releasePartitions(ReleasePartitionsRequest request, StreamObserver<Ack> response) {
        executor.releasePartitions(request.getJmSessionId(), request.getJobId(), request.getPartitionIdsList(),
                request.getOnlyKept(), reply(response));
    }

    @Override
    public void triggerCheckpoint(io.duraflow.rpc.proto.TriggerCheckpointRequests request, StreamObserver<Ack> response) {
        executor.triggerCheckpoint(request, reply(response));
    }

    @Override
    public void notifyCheckpoint(io.duraflow.rpc.proto.CheckpointNotifications request, StreamObserver<Ack> response) {
        executor.notifyCheckpoint(request, reply(response));
    }

    @Override
    public void adoptTasks(io.duraflow.rpc.proto.AdoptTasksRequest request, StreamObserver<Ack> response) {
        executor.adopt(request.getJmSessionId(), request.getAttemptsList(), reply(response));
    }

    /**
     * Answered here, not in the mailbox: the JobManager asks whether this process is there at all
     * (it suspects it died), and a busy mailbox must not make a live TaskManager look dead.
     */
    @Override
    public void ping(io.duraflow.rpc.proto.PingRequest request,
            StreamObserver<io.duraflow.rpc.proto.PingResponse> response) {
        response.onNext(io.duraflow.rpc.proto.PingResponse.newBuilder().setTmId(executor.taskManagerId()).build());
        response.onCompleted();
    }

    /** The executor answers from its mailbox; this thread only hands the request over. */
    private static TaskExecutor.Reply reply(StreamObserver<Ack> response) {
        return new TaskExecutor.Reply() {
            @Override
            public void ok() {
                response.onNext(Ack.getDefaultInstance());
                response.onCompleted();
            }

            @Override
            public void refuse(StatusRuntimeException error) {
                response.onError(error);
            }
        };
    }

    /**
     * Sends whole frames in chunks of about 1 MiB, only as fast as the consumer takes them.
     * NOT_FOUND means the partition is gone and its producer must run again; INVALID_ARGUMENT (a
     * subpartition range outside the partition) and INTERNAL are failures a re-run cannot fix.
     */
    @Override
    public void fetchPartition(FetchPartitionRequest request, StreamObserver<PartitionChunk> response) {
        String partitionId = request.getPartitionId();
        PartitionFileReader reader;
        try {
            reader = executor.openPartition(partitionId);
        } catch (PartitionNotFoundException e) {
            response.onError(Status.NOT_FOUND.withDescription(e.reason()).asRuntimeException());
            return;
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot open partition {} for a fetch", partitionId, e);
            response.onError(Status.INTERNAL.withDescription("partition " + partitionId + " cannot be read: "
                    + e.getMessage()).asRuntimeException());
            return;
        }
        FrameCursor cursor;
        try {
            cursor = reader.frames(request.getSubpartitionFrom(), request.getSubpartitionTo());
        } catch (RuntimeException e) {
            closeQuietly(reader);
            Status status = e instanceof IndexOutOfBoundsException ? Status.INVALID_ARGUMENT : Status.INTERNAL;
            response.onError(status.withDescription("partition " + partitionId + " has " + reader.subpartitionCount()
                    + " subpartitions; cannot read [" + request.getSubpartitionFrom() + ", "
                    + request.getSubpartitionTo() + "): " + e.getMessage()).asRuntimeException());
            return;
        }
        ServerCallStreamObserver<PartitionChunk> stream = (ServerCallStreamObserver<PartitionChunk>) response;
        boolean[] done = {false};
        Runnable pump = () -> {
            synchronized (done) {
                if (done[0]) {
                    return;
                }
                try {
                    while (stream.isReady()) {
                        // A fresh array that nothing writes to again, so it can be wrapped, not copied.
                        byte[] chunk = cursor.nextChunk(PartitionFileReader.FETCH_CHUNK_BYTES);
                        if (chunk == null) {
                            done[0] = true;
                            reader.close();
                            stream.onCompleted();
                            return;
                        }
                        stream.onNext(PartitionChunk.newBuilder()
                                .setFrames(UnsafeByteOperations.unsafeWrap(chunk)).build());
                    }
                } catch (IOException | RuntimeException e) {
                    done[0] = true;
                    closeQuietly(reader);
                    stream.onError(Status.DATA_LOSS.withDescription(e.getMessage()).asRuntimeException());
                }
            }
        };
        stream.setOnCancelHandler(() -> {
            synchronized (done) {
                done[0] = true;
                closeQuietly(reader);
            }
        });
        stream.setOnReadyHandler(pump);
        pump.run();
    }

    private static void closeQuietly(PartitionFileReader reader) {
        try {
            reader.close();
        } catch (IOException | RuntimeException ignored) {
            // nothing to do
        }
    }
}

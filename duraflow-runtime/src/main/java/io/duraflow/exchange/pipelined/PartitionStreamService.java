package io.duraflow.exchange.pipelined;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.PartitionStreamsGrpc;
import io.duraflow.rpc.proto.StreamBuffer;
import io.duraflow.rpc.proto.StreamOpen;
import io.duraflow.rpc.proto.StreamRequest;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer side of remote pipelined channels: serves each {@code Stream} call from one
 * subpartition of a {@link PipelinedResultPartition} of this TaskManager.
 *
 * <p>Flow control: a data buffer is sent only against credit the consumer granted (one per free
 * receive buffer) and only while gRPC's transport is ready; events go without credit. A sent buffer
 * is recycled at once, so the producer's memory is bounded by its share and the consumer's by the
 * credit it grants. Sending runs on {@code sendExecutor}, one run at a time per stream, woken by
 * the subpartition (data), the consumer (credit) and the transport (ready); the producer's task
 * thread never serializes or sends.
 */
public final class PartitionStreamService extends PartitionStreamsGrpc.PartitionStreamsImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStreamService.class);

    private final String taskManagerId;
    private final PipelinedPartitionRegistry registry;
    private final Duration partitionRequestTimeout;
    private final Executor sendExecutor;

    public PartitionStreamService(String taskManagerId, PipelinedPartitionRegistry registry,
            Duration partitionRequestTimeout, Executor sendExecutor) {
        this.taskManagerId = taskManagerId;
        this.registry = registry;
        this.partitionRequestTimeout = partitionRequestTimeout;
        this.sendExecutor = sendExecutor;
    }

    @Override
    public StreamObserver<StreamRequest> stream(StreamObserver<StreamBuffer> responseObserver) {
        return new OutboundStream((ServerCallStreamObserver<StreamBuffer>) responseObserver);
    }

    /** One consumer's stream. Every call on {@link #response} happens under this object's lock. */
    private final class OutboundStream implements StreamObserver<StreamRequest> {
        private final ServerCallStreamObserver<StreamBuffer> response;
        private final AtomicBoolean sendScheduled = new AtomicBoolean();
        private StreamOpen open;
        private SubpartitionView view;
        private int credit;
        private boolean closed;

        OutboundStream(ServerCallStreamObserver<StreamBuffer> response) {
            this.response = response;
            response.setOnReadyHandler(this::scheduleSend);
            response.setOnCancelHandler(this::consumerGone);
        }

        @Override
        public void onNext(StreamRequest request) {
            switch (request.getKindCase()) {
                case OPEN -> open(request.getOpen());
                case CREDIT -> {
                    synchronized (this) {
                        credit += request.getCredit();
                    }
                    scheduleSend();
                }
                default -> fail(Status.INVALID_ARGUMENT.withDescription("stream request without open or credit;"
                        + " run the same Duraflow version on every task manager"));
            }
        }

        private void open(StreamOpen request) {
            synchronized (this) {
                if (open != null) {
                    failLocked(Status.INVALID_ARGUMENT.withDescription("stream opened twice"));
                    return;
                }
                open = request;
                credit = request.getInitialCredit();
            }
            CompletableFuture<PipelinedResultPartition> lookup = registry.lookup(request.getPartitionId());
            lookup.copy().orTimeout(partitionRequestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((partition, error) -> {
                        if (error != null) {
                            registry.forgetIfAbsent(request.getPartitionId());
                            String reason = error instanceof TimeoutException
                                    ? "is not produced on task manager " + taskManagerId + " (waited "
                                            + partitionRequestTimeout.toMillis() + " ms); its producer failed or was"
                                            + " never deployed here"
                                    : "cannot be read on task manager " + taskManagerId + ": " + error.getMessage();
                            fail(Status.NOT_FOUND.withDescription("partition " + request.getPartitionId() + " " + reason));
                            return;
                        }
                        attach(partition, request);
                    });
        }

        private void attach(PipelinedResultPartition partition, StreamOpen request) {
            if (request.getSubpartition() < 0 || request.getSubpartition() >= partition.subpartitionCount()) {
                fail(Status.INVALID_ARGUMENT.withDescription("partition " + request.getPartitionId() + " has "
                        + partition.subpartitionCount() + " subpartitions; there is no subpartition "
                        + request.getSubpartition()));
                return;
            }
            SubpartitionView created;
            try {
                created = partition.createView(request.getSubpartition(), this::scheduleSend);
            } catch (IllegalStateException e) {
                fail(Status.FAILED_PRECONDITION.withDescription(e.getMessage()));
                return;
            }
            boolean release;
            synchronized (this) {
                release = closed;
                if (!closed) {
                    view = created;
                }
            }
            if (release) {
                created.release();
                return;
            }
            scheduleSend();
        }

        private void scheduleSend() {
            if (sendScheduled.compareAndSet(false, true)) {
                sendExecutor.execute(() -> {
                    // Cleared before sending: a wake-up during this run schedules another one, so none is lost.
                    sendScheduled.set(false);
                    send();
                });
            }
        }

        private synchronized void send() {
            if (closed || view == null) {
                return;
            }
            try {
                while (response.isReady()) {
                    BufferOrEvent element = credit > 0 ? view.poll() : view.pollEvent();
                    if (element == null) {
                        return;
                    }
                    if (element instanceof NetworkBuffer buffer) {
                        credit--;
                        StreamBuffer message;
                        try {
                            message = StreamBuffer.newBuilder()
                                    .setData(ByteString.copyFrom(buffer.memory(), 0, buffer.size()))
                                    .setBacklog(view.backlog()).build();
                        } finally {
                            buffer.recycle();
                        }
                        response.onNext(message);
                    } else {
                        NetworkEvent event = (NetworkEvent) element;
                        response.onNext(StreamBuffer.newBuilder().setEvent(StreamEvents.toProto(event))
                                .setBacklog(view.backlog()).build());
                        if (event instanceof NetworkEvent.EndOfPartition) {
                            closed = true;
                            response.onCompleted();
                            return;
                        }
                    }
                }
            } catch (ProducerFailedException e) {
                failLocked(Status.ABORTED.withDescription(e.getMessage() + " (on task manager " + taskManagerId + ")"));
            } catch (RuntimeException e) {
                LOG.warn("Sending partition {} subpartition {} failed", open.getPartitionId(), open.getSubpartition(), e);
                failLocked(Status.INTERNAL.withDescription("task manager " + taskManagerId + " failed sending partition "
                        + open.getPartitionId() + ": " + e));
            }
        }

        private synchronized void fail(Status status) {
            failLocked(status);
        }

        private void failLocked(Status status) {
            if (closed) {
                return;
            }
            closed = true;
            if (view != null) {
                view.release();
            }
            try {
                response.onError(status.asRuntimeException());
            } catch (IllegalStateException e) {
                // The call ended meanwhile (cancelled by the consumer): nobody to tell.
            }
        }

        private void consumerGone() {
            SubpartitionView toRelease;
            synchronized (this) {
                closed = true;
                toRelease = view;
            }
            if (toRelease != null) {
                toRelease.release();
            }
        }

        @Override
        public void onError(Throwable t) {
            consumerGone();
        }

        @Override
        public void onCompleted() {
            // The consumer closed its side: after the end of the partition, or because it stopped early.
            boolean wasOpen;
            synchronized (this) {
                wasOpen = !closed;
            }
            consumerGone();
            if (wasOpen) {
                synchronized (this) {
                    try {
                        response.onCompleted();
                    } catch (IllegalStateException e) {
                        // The call ended meanwhile.
                    }
                }
            }
        }
    }
}

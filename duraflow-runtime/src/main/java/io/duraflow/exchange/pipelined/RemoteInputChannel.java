package io.duraflow.exchange.pipelined;

import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.PartitionStreamsGrpc;
import io.duraflow.rpc.proto.StreamBuffer;
import io.duraflow.rpc.proto.StreamOpen;
import io.duraflow.rpc.proto.StreamRequest;
import io.grpc.Channel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A subpartition of a producer on another TaskManager, received over a {@code PartitionStreams}
 * stream with credit-based flow control.
 *
 * <p>The channel holds {@code receiveBuffers} buffers of its gate's pool. It opens the stream with
 * one credit per buffer; a received data buffer is copied into a free one (so the producer's buffer
 * is recycled as soon as it was sent), and when the task recycles it the channel grants one credit
 * back, unless alignment holds the channel: then the credit is withheld until {@link #resume()}.
 * The producer therefore never has more than {@code receiveBuffers} data buffers in flight to this
 * channel, and a producer that sends more is a protocol error.
 *
 * <p>Failure: an error on the stream, or its end before the end-of-partition event, fails the
 * channel at once with a message naming the producer's TaskManager; a TaskManager killed with
 * SIGKILL closes its sockets, so its consumers notice within a round trip, not after the heartbeat
 * timeout.
 *
 * <p>Threads: gRPC's thread delivers (under this object's lock); the task thread polls, recycles,
 * blocks and resumes. Messages to the producer are sent under {@link #sendLock}.
 */
public final class RemoteInputChannel implements PipelinedInputChannel {
    private final Channel connection;
    private final String producerTaskManagerId;
    private final String producerAddress;
    private final String partitionId;
    private final int subpartition;
    private final String consumer;
    private final LocalBufferPool receivePool;
    private final int receiveBuffers;
    private final String description;

    private final Object sendLock = new Object();
    private ClientCallStreamObserver<StreamRequest> requests;

    /** Guarded by this. */
    private final ArrayDeque<byte[]> freeBuffers = new ArrayDeque<>();
    private final ArrayDeque<BufferOrEvent> received = new ArrayDeque<>();
    private Runnable dataAvailable;
    private boolean blocked;
    private int withheldCredit;
    private boolean endReceived;
    private boolean closed;
    private String failure;
    /** Set with {@link #failure} when the stream broke because the producer's TaskManager is unreachable. */
    private PeerUnreachableException unreachable;

    /**
     * @param connection the gRPC channel to the producer's TaskManager (shared by all channels to it)
     * @param receivePool the gate's pool; it must have {@code receiveBuffers} reserved for this channel
     * @param consumer names the consuming task, for the producer's log
     */
    public RemoteInputChannel(Channel connection, String producerTaskManagerId, String producerAddress,
            String partitionId, int subpartition, LocalBufferPool receivePool, int receiveBuffers, String consumer) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.producerTaskManagerId = producerTaskManagerId;
        this.producerAddress = producerAddress;
        this.partitionId = partitionId;
        this.subpartition = subpartition;
        this.receivePool = receivePool;
        this.receiveBuffers = receiveBuffers;
        this.consumer = consumer;
        this.description = "partition " + partitionId + " subpartition " + subpartition + " from task manager "
                + producerTaskManagerId + " at " + producerAddress;
        if (receiveBuffers < 1) {
            throw new IllegalArgumentException(description + ": a remote channel needs at least one receive buffer");
        }
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void start(Runnable dataAvailable) {
        synchronized (this) {
            if (this.dataAvailable != null) {
                throw new IllegalStateException(description + " was started already");
            }
            this.dataAvailable = dataAvailable;
            for (int i = 0; i < receiveBuffers; i++) {
                NetworkBuffer buffer = receivePool.requestBuffer();
                if (buffer == null) {
                    throw new IllegalStateException(description + ": the gate's buffer pool " + receivePool.owner()
                            + " has no receive buffer left; it must reserve " + receiveBuffers + " per remote channel");
                }
                freeBuffers.add(buffer.memory());
            }
        }
        synchronized (sendLock) {
            requests = (ClientCallStreamObserver<StreamRequest>) PartitionStreamsGrpc.newStub(connection)
                    .stream(new Receiver());
            requests.onNext(StreamRequest.newBuilder().setOpen(StreamOpen.newBuilder().setPartitionId(partitionId)
                    .setSubpartition(subpartition).setInitialCredit(receiveBuffers).setConsumer(consumer)).build());
        }
    }

    @Override
    public BufferOrEvent poll() throws ProducerFailedException {
        synchronized (this) {
            if (failure != null) {
                throw unreachable == null ? new ProducerFailedException(failure)
                        : new ProducerFailedException(failure, unreachable);
            }
            return received.poll();
        }
    }

    @Override
    public void block() {
        synchronized (this) {
            blocked = true;
        }
    }

    @Override
    public void resume() {
        int credit;
        synchronized (this) {
            blocked = false;
            credit = withheldCredit;
            withheldCredit = 0;
        }
        grant(credit);
    }

    /** The task recycled a received buffer: reuse it, and grant its credit unless alignment holds the channel. */
    private void recycleReceived(byte[] memory) {
        boolean grant;
        synchronized (this) {
            if (closed) {
                receivePool.recycle(memory);
                return;
            }
            freeBuffers.add(memory);
            if (blocked) {
                withheldCredit++;
                grant = false;
            } else {
                grant = true;
            }
        }
        if (grant) {
            grant(1);
        }
    }

    private void grant(int credit) {
        if (credit == 0) {
            return;
        }
        synchronized (sendLock) {
            if (requests == null || isClosed()) {
                return;
            }
            try {
                requests.onNext(StreamRequest.newBuilder().setCredit(credit).build());
            } catch (IllegalStateException e) {
                // The call ended; the receiver has recorded why.
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed || endReceived || failure != null;
    }

    /** Credit recycled while alignment held the channel, not yet granted; for tests and status. */
    synchronized int withheldCredit() {
        return withheldCredit;
    }

    @Override
    public void close() {
        boolean cancel;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            cancel = !endReceived && failure == null;
            for (BufferOrEvent element : received) {
                if (element instanceof NetworkBuffer buffer) {
                    buffer.recycle(); // closed: goes straight back to the pool
                }
            }
            received.clear();
            for (byte[] memory : freeBuffers) {
                receivePool.recycle(memory);
            }
            freeBuffers.clear();
        }
        synchronized (sendLock) {
            if (requests == null) {
                return;
            }
            try {
                if (cancel) {
                    requests.cancel("the consumer " + consumer + " closed the channel", null);
                } else {
                    requests.onCompleted();
                }
            } catch (IllegalStateException e) {
                // already ended
            }
        }
    }

    private void fail(String reason) {
        fail(reason, null);
    }

    private void fail(String reason, PeerUnreachableException cause) {
        Runnable notify;
        synchronized (this) {
            if (failure != null || closed || endReceived) {
                return;
            }
            failure = reason;
            unreachable = cause;
            notify = dataAvailable;
        }
        notify.run();
    }

    /** gRPC's side. */
    private final class Receiver implements ClientResponseObserver<StreamRequest, StreamBuffer> {
        @Override
        public void beforeStart(ClientCallStreamObserver<StreamRequest> requestStream) {
        }

        @Override
        public void onNext(StreamBuffer message) {
            Runnable notify = null;
            String violation = null;
            int grantNow = 0;
            synchronized (RemoteInputChannel.this) {
                if (closed || failure != null) {
                    return;
                }
                boolean wasEmpty = received.isEmpty();
                switch (message.getKindCase()) {
                    case DATA -> {
                        byte[] memory = freeBuffers.poll();
                        if (memory == null) {
                            violation = "task manager " + producerTaskManagerId + " sent more data buffers than "
                                    + receiveBuffers + " credits for " + description + "; run the same Duraflow version"
                                    + " on every task manager";
                        } else {
                            int size = message.getData().size();
                            if (size <= memory.length) {
                                message.getData().copyTo(memory, 0);
                                received.add(new NetworkBuffer(memory, size, RemoteInputChannel.this::recycleReceived));
                            } else {
                                // A record larger than a buffer: its own memory outside the pool; the credit's
                                // receive buffer is free again at once.
                                received.add(new NetworkBuffer(message.getData().toByteArray(), size,
                                        NetworkBuffer.Recycler.UNPOOLED));
                                freeBuffers.add(memory);
                                if (blocked) {
                                    withheldCredit++;
                                } else {
                                    grantNow = 1;
                                }
                            }
                        }
                    }
                    case EVENT -> {
                        NetworkEvent event;
                        try {
                            event = StreamEvents.fromProto(message.getEvent());
                        } catch (IllegalArgumentException e) {
                            violation = "task manager " + producerTaskManagerId + " sent a " + e.getMessage();
                            break;
                        }
                        received.add(event);
                        if (event instanceof NetworkEvent.EndOfPartition) {
                            endReceived = true;
                        }
                    }
                    default -> violation = "task manager " + producerTaskManagerId + " sent an empty stream message"
                            + " for " + description;
                }
                if (violation == null && wasEmpty) {
                    notify = dataAvailable;
                }
            }
            if (violation != null) {
                fail(violation);
                requests.cancel(violation, null);
                return;
            }
            grant(grantNow);
            if (notify != null) {
                notify.run();
            }
        }

        @Override
        public void onError(Throwable t) {
            // The connection was refused or broke, or the producer's server went down (a producer
            // that fails ends the stream with ABORTED; our own cancel closed the channel first), so
            // the JobManager is told to check on the producer's TaskManager.
            fail("lost the stream of " + description + ": " + Rpc.message(t) + "; the producer or its task manager"
                    + " failed, so this task fails and its job restarts from its latest checkpoint",
                    PeerUnreachableException.isConnectionLost(t) ? new PeerUnreachableException(producerTaskManagerId,
                            producerAddress, Rpc.message(t)) : null);
        }

        @Override
        public void onCompleted() {
            boolean early;
            synchronized (RemoteInputChannel.this) {
                early = !endReceived;
            }
            if (early) {
                fail("task manager " + producerTaskManagerId + " ended the stream of " + description
                        + " before the end of the partition; the task fails and its job restarts from its latest checkpoint");
            }
        }
    }
}

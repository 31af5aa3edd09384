package io.duraflow.rpc;

import io.duraflow.rpc.proto.AttemptId;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;

/** Channel creation and small helpers shared by every process. */
public final class Rpc {
    /** Largest gRPC message: partition chunks are about 1 MiB, collected results can be larger. */
    public static final int MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

    private Rpc() {}

    public static ManagedChannel channel(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("address must be host:port, got '" + hostPort + "'");
        }
        String host = hostPort.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address must be host:port, got '" + hostPort + "'");
        }
        return NettyChannelBuilder.forAddress(host, port)
                .usePlaintext()
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .keepAliveTime(30, TimeUnit.SECONDS)
                .build();
    }

    public static void shutdown(ManagedChannel channel) {
        channel.shutdownNow();
        try {
            channel.awaitTermination(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static String describe(AttemptId id) {
        return id.getJobId() + "/v" + id.getVertex() + "/" + id.getSubtask() + "#" + id.getAttempt();
    }

    /** True when the peer is not there (down, refused, or timed out), as opposed to an answer. */
    public static boolean isUnreachable(Throwable t) {
        if (t instanceof StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
        }
        return false;
    }

    /** The message of a gRPC error as the server wrote it, without the status prefix. */
    public static String message(Throwable t) {
        if (t instanceof StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            return description != null ? description : e.getStatus().getCode().toString();
        }
        return String.valueOf(t.getMessage());
    }
}

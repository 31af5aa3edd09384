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

    /**
     * The message of a gRPC error as the server wrote it, without the status prefix; for an error
     * without a description (or one that says only "null", as servers before this helper sent for
     * exceptions without a message), its code and that the server's log has the cause.
     */
    public static String message(Throwable t) {
        if (t instanceof StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            if (hasText(description)) {
                return description;
            }
            Throwable cause = e.getStatus().getCause() != null ? e.getStatus().getCause() : e.getCause();
            return e.getStatus().getCode() + " error without a description"
                    + (cause != null ? " (" + describe(cause) + ")" : "; the server's log has the cause");
        }
        return describe(t);
    }

    /**
     * A failure as one line for a peer or a user: the first line of its message, or, when it has
     * none (a bare {@code NullPointerException}, an {@code ExceptionInInitializerError}), its type,
     * where it was thrown and its cause, so that nobody reads "INTERNAL: null".
     */
    public static String describe(Throwable t) {
        String message = t.getMessage();
        if (hasText(message)) {
            int newline = message.indexOf('\n');
            return newline < 0 ? message : message.substring(0, newline);
        }
        StringBuilder text = new StringBuilder(t.getClass().getName()).append(" without a message");
        StackTraceElement[] stack = t.getStackTrace();
        if (stack.length > 0) {
            text.append(" at ").append(stack[0]);
        }
        if (t.getCause() != null && t.getCause() != t) {
            text.append(", caused by ").append(t.getCause().getClass().getSimpleName()).append(": ")
                    .append(describe(t.getCause()));
        }
        return text.toString();
    }

    /**
     * The error a server answers for an unexpected exception: INTERNAL with {@link #describe}
     * (type and message), never an empty or "null" description.
     */
    public static StatusRuntimeException internalError(Throwable t) {
        String message = t.getMessage();
        String description = hasText(message) ? t.getClass().getSimpleName() + ": " + describe(t) : describe(t);
        return Status.INTERNAL.withDescription(description).withCause(t).asRuntimeException();
    }

    private static boolean hasText(String text) {
        return text != null && !text.isBlank() && !text.equals("null");
    }
}

package io.duraflow.rpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;

/**
 * A call to a peer TaskManager failed because nobody answered at its address (gRPC UNAVAILABLE:
 * connection refused or broken), not because the peer answered with an error. A task that fails
 * with this in its cause chain names the peer in its failure report, and the JobManager takes that
 * as a suspicion that the peer is dead (it pings it before it declares it lost).
 */
public final class PeerUnreachableException extends IOException {
    private final String taskManagerId;
    private final String address;

    public PeerUnreachableException(String taskManagerId, String address, String message) {
        super("task manager " + taskManagerId + " at " + address + " is unreachable: " + message);
        this.taskManagerId = taskManagerId;
        this.address = address;
    }

    public String taskManagerId() {
        return taskManagerId;
    }

    public String address() {
        return address;
    }

    /**
     * Whether a failed call says nobody answers at the peer's address: UNAVAILABLE, which gRPC
     * reports for a refused or broken connection. DEADLINE_EXCEEDED is no such sign: the peer may
     * only be slow.
     */
    public static boolean isUnavailable(Throwable error) {
        return error instanceof StatusRuntimeException status && status.getStatus().getCode() == Status.Code.UNAVAILABLE;
    }

    /**
     * Whether a stream from a peer ended because the peer's end went away: UNAVAILABLE (the
     * connection was refused or broke, as after a SIGKILL), or CANCELLED by the peer (a server
     * that shuts down cancels its open streams; a live one ends a stream it cannot serve with
     * another code). The caller must tell apart a cancellation of its own.
     */
    public static boolean isConnectionLost(Throwable error) {
        if (error instanceof StatusRuntimeException status) {
            Status.Code code = status.getStatus().getCode();
            return code == Status.Code.UNAVAILABLE || code == Status.Code.CANCELLED;
        }
        return false;
    }

    /** The first one in {@code error}'s cause chain, or null. */
    public static PeerUnreachableException find(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PeerUnreachableException unreachable) {
                return unreachable;
            }
        }
        return null;
    }
}

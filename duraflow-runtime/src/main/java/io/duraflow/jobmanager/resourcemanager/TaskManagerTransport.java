package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.rpc.proto.AttemptId;


/**
 * How the {@link ResourceManager} reaches the TaskManagers it registered: a gRPC channel each
 * ({@link GrpcTaskManagerTransport}), or a fake that records the calls in tests. The
 * ResourceManager decides who is registered and only calls a TaskManager between its {@link
 * #connect} and {@link #disconnect}; the transport carries the calls.
 *
 * <p>Called on the main thread. The {@code onFailure} callback of {@link #deploy} and the result
 * of {@link #ping} may come on any thread; failures of the other calls are logged by the
 * transport, and those that say the TaskManager may be gone are reported as suspicions ({@link
 * #reportSuspicionsTo}).
 */
public interface TaskManagerTransport extends TaskManagerGateways, AutoCloseable {
    /** A TaskManager registered at {@code address} (host:port); calls to it may follow. */
    void connect(String tmId, String address);

    /**
     * Tells the TaskManager that this leader adopted tasks it kept running across the leader
     * change; {@code answered} or {@code onFailure} is told (any thread) how the call ended.
     */
    default void adopt(String tmId, java.util.List<AttemptId> attempts, Runnable answered,
            java.util.function.Consumer<Throwable> onFailure) {
        onFailure.accept(new UnsupportedOperationException("this transport cannot adopt tasks"));
    }

    /** The TaskManager is gone, or registers again: drops its connection. */
    void disconnect(String tmId);

    /**
     * Releases partitions of a job (all of them if {@code partitionIds} is empty) and tells {@code
     * answered} (any thread) how the call ended: null once the TaskManager confirmed that it
     * released them, else the failure (it refused, or did not answer within the call's deadline).
     */
    void releasePartitions(String tmId, String jobId, java.util.List<String> partitionIds,
            java.util.function.Consumer<Throwable> answered);

    /** A release nobody waits for: a failure is only logged. */
    @Override
    default void releasePartitions(String tmId, String jobId, java.util.List<String> partitionIds) {
        releasePartitions(tmId, jobId, partitionIds, error -> { });
    }

    /**
     * Releases partitions the TaskManager kept from an earlier JobManager (all of the job's if
     * {@code partitionIds} is empty); partitions written since are never touched.
     */
    void releaseKeptPartitions(String tmId, String jobId, java.util.List<String> partitionIds);

    /**
     * What a call's {@code onFailure} gets when it failed because this JobManager shut the
     * TaskManager's channel down (it registered again, was lost, or the leadership ended), not
     * because of the TaskManager: never a reason to declare the TaskManager lost.
     */
    final class ClosedByUs extends IllegalStateException {
        public ClosedByUs(String tmId, Throwable cause) {
            super("the call to TaskManager " + tmId + " was cut off: this JobManager closed its connection", cause);
        }
    }

    /**
     * Asks the TaskManager whether it is there, with a deadline of {@code timeoutMs}: a fresh
     * connection attempt, not a failure remembered from an earlier one. {@code result} may be
     * called on any thread.
     */
    void ping(String tmId, long timeoutMs, java.util.function.Consumer<PingResult> result);

    /**
     * Where the transport reports, from any thread, signs that a TaskManager may be gone: a call
     * to it failed with UNAVAILABLE, or its channel left READY or failed to connect. Each is a
     * suspicion the {@link ResourceManager} settles with a {@link #ping}. None for a channel this
     * JobManager shut down itself.
     */
    default void reportSuspicionsTo(java.util.function.BiConsumer<String, String> suspect) {}

    /** What a {@link #ping} found. */
    sealed interface PingResult {
        /** Something answered at the TaskManager's address; {@code tmId} is who ("" if it did not say). */
        record Answered(String tmId) implements PingResult {}

        /** Nobody answers at the address: the connection was refused or broke (UNAVAILABLE). */
        record Refused(String reason) implements PingResult {}

        /**
         * Nothing conclusive: no answer within the deadline (the TaskManager may only be slow, or
         * cut off for a while), or the call was cut off by this JobManager.
         */
        record NoAnswer(String reason) implements PingResult {}
    }

    /** Drops every connection. */
    @Override
    void close();
}

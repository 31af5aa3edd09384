package io.duraflow.jobmanager;

import io.duraflow.jobmanager.scheduler.TaskManagerGateways;

/**
 * How the {@link ResourceManager} reaches the TaskManagers it registered: a gRPC channel each
 * ({@link GrpcTaskManagerTransport}), or a fake that records the calls in tests. The
 * ResourceManager decides who is registered and only calls a TaskManager between its {@link
 * #connect} and {@link #disconnect}; the transport carries the calls.
 *
 * <p>Called on the main thread. The {@code onFailure} callback of {@link #deploy} may run on any
 * thread; failures of the other calls are only logged, by the transport.
 */
public interface TaskManagerTransport extends TaskManagerGateways, AutoCloseable {
    /** A TaskManager registered at {@code address} (host:port); calls to it may follow. */
    void connect(String tmId, String address);

    /** The TaskManager is gone, or registers again: drops its connection. */
    void disconnect(String tmId);

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

    /** Drops every connection. */
    @Override
    void close();
}

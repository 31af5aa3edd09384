package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TaskManagerGateways} of the resource manager: deployments, cancellations, operator
 * events, checkpoint calls and partition releases, sent through the {@link TaskManagerTransport}
 * to registered TaskManagers only (a call to one that is not registered is dropped, or fails).
 *
 * <p>A deployment the TaskManager refuses because all its slots are busy ({@code
 * RESOURCE_EXHAUSTED}) is sent again, not failed: this JobManager counts a slot free as soon as it
 * asks for a task's cancellation (a failover, a job that ends), the TaskManager only once the task
 * has stopped, so for a moment the two disagree. Sent again after 20 ms, then twice as long each
 * time up to 500 ms, for at most {@code heartbeat.timeout}; after that the deployment fails as
 * before. A cancellation of the attempt, or the end of the TaskManager's registration ({@link
 * #dropDeployRetries}), ends the retries. Without them, each refusal failed the task and used up
 * one of the job's restarts (a job with few restarts failed for good after a TaskManager loss).
 *
 * <p>A deployment refused with UNAVAILABLE (nobody listens at the address) makes the TaskManager
 * suspected ({@link TaskManagerLiveness#refusedConnection}).
 *
 * <p>Main thread only (the JobManager's {@link Mailbox}); no locks. Failures of calls come back on
 * the transport's threads and are handled through the main thread's {@link Mailbox#execute}.
 */
final class TaskManagerCalls implements TaskManagerGateways {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerCalls.class);

    static final long FIRST_DEPLOY_RETRY_MS = 20;
    static final long MAX_DEPLOY_RETRY_MS = 500;

    /** A deployment refused for busy slots, waiting to be sent again. */
    private record DeployRetry(String tmId, Mailbox.Cancellable timer, Consumer<Throwable> onFailure) {}

    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final long heartbeatTimeoutMs;
    private final TaskManagerTransport transport;
    private final TaskManagerRegistry registry;
    private final TaskManagerLiveness liveness;
    private final KeptFromEarlierLeader kept;

    /** By attempt: deployments waiting to be sent again. */
    private final Map<AttemptId, DeployRetry> deployRetries = new LinkedHashMap<>();

    /**
     * @param heartbeatTimeoutMs how long a deployment refused for busy slots is sent again
     * @param kept forgets the partitions that are released
     */
    TaskManagerCalls(Mailbox mainThread, LongSupplier clock, long heartbeatTimeoutMs, TaskManagerTransport transport,
            TaskManagerRegistry registry, TaskManagerLiveness liveness, KeptFromEarlierLeader kept) {
        this.mainThread = mainThread;
        this.clock = clock;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.transport = transport;
        this.registry = registry;
        this.liveness = liveness;
        this.kept = kept;
    }

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        deploy(tmId, deployment, onFailure, clock.getAsLong() + heartbeatTimeoutMs, FIRST_DEPLOY_RETRY_MS);
    }

    private void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure, long retryUntilMs,
            long retryDelayMs) {
        TaskManagerRegistry.Registration target = registry.current(tmId);
        if (target == null) {
            mainThread.execute(() -> onFailure.accept(new IllegalStateException("TaskManager " + tmId + " is gone")));
            return;
        }
        transport.deploy(tmId, deployment, error -> mainThread.execute(() -> {
            if (registry.current(tmId) == target && slotsStillBusy(error)
                    && clock.getAsLong() + retryDelayMs <= retryUntilMs) {
                AttemptId attempt = deployment.getAttempt();
                LOG.info("TaskManager {} has no free slot for {} yet ({}); sending it again in {} ms", tmId,
                        Rpc.describe(attempt), Rpc.message(error), retryDelayMs);
                deployRetries.put(attempt, new DeployRetry(tmId, mainThread.schedule(() -> {
                    if (deployRetries.remove(attempt) != null) {
                        deploy(tmId, deployment, onFailure, retryUntilMs,
                                Math.min(MAX_DEPLOY_RETRY_MS, retryDelayMs * 2));
                    }
                }, retryDelayMs), onFailure));
            } else if (registry.current(tmId) == target && refusedConnection(error)) {
                // If the probe confirms that the TaskManager is gone, losing it resets the
                // deployment with everything else it held; if it answers, only the deployment failed.
                liveness.refusedConnection(tmId, "a deployment to it failed (" + Rpc.message(error) + ")",
                        () -> onFailure.accept(error));
            } else {
                // Either the registration this call went to has ended (the TaskManager registered
                // again, and its channel was shut down by us: that is no sign of the new
                // registration being gone; a live TaskManager's kept outputs were lost that way),
                // or the call failed for another reason: only the deployment failed.
                onFailure.accept(error);
            }
        }));
    }

    /** The TaskManager's registration ended: its deployments are not sent again. */
    void dropDeployRetries(String tmId) {
        deployRetries.values().removeIf(retry -> {
            if (retry.tmId().equals(tmId)) {
                retry.timer().cancel();
                return true;
            }
            return false;
        });
    }

    /** Whether the TaskManager refused a deployment because its slots are still held by stopping tasks. */
    private static boolean slotsStillBusy(Throwable error) {
        return error instanceof io.grpc.StatusRuntimeException status
                && status.getStatus().getCode() == io.grpc.Status.Code.RESOURCE_EXHAUSTED;
    }

    /**
     * Whether a failed call shows that nobody listens at the TaskManager's address: UNAVAILABLE
     * from the network, not from a channel this JobManager shut down itself ({@link
     * TaskManagerTransport.ClosedByUs}), which says nothing about the TaskManager.
     */
    private static boolean refusedConnection(Throwable error) {
        return error instanceof io.grpc.StatusRuntimeException status
                && status.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE;
    }

    /**
     * Cancels the attempt on the TaskManager, which confirms with a CANCELED update. An attempt
     * whose deployment waits to be sent again (its slots were busy) never reached the TaskManager,
     * which knows nothing to confirm: its deployment fails instead (after this call, on the main
     * thread), so the attempt ends and a restart or a cancellation waiting for it goes on.
     */
    @Override
    public void cancel(String tmId, AttemptId attempt) {
        DeployRetry retry = deployRetries.remove(attempt);
        if (retry != null) {
            retry.timer().cancel();
            mainThread.execute(() -> retry.onFailure().accept(new IllegalStateException("cancelled before it reached"
                    + " TaskManager " + tmId + ", whose slots were still busy")));
            return;
        }
        if (registry.isRegistered(tmId)) {
            transport.cancel(tmId, attempt);
        }
    }

    /** Cancels on the TaskManager an attempt that no job master runs there; see {@link ResourceManager#cancelStray}. */
    void cancelStray(String tmId, AttemptId attempt) {
        if (registry.isRegistered(tmId)) {
            transport.cancel(tmId, attempt);
        }
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        if (registry.isRegistered(tmId)) {
            transport.sendOperatorEvent(tmId, attempt, nodeId, sequence, event);
        }
    }

    @Override
    public void triggerCheckpoint(String tmId, TriggerCheckpointRequests triggers) {
        if (registry.isRegistered(tmId)) {
            transport.triggerCheckpoint(tmId, triggers);
        }
    }

    @Override
    public void notifyCheckpoint(String tmId, CheckpointNotifications notifications) {
        if (registry.isRegistered(tmId)) {
            transport.notifyCheckpoint(tmId, notifications);
        }
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
        kept.forgetPartitions(tmId, jobId, partitionIds);
        if (registry.isRegistered(tmId)) {
            transport.releasePartitions(tmId, jobId, partitionIds);
        }
    }

    /** Releases partitions and tells {@code released} how that ended; see {@link ResourceManager#releasePartitions}. */
    void releasePartitions(String tmId, String jobId, List<String> partitionIds, Consumer<Throwable> released) {
        kept.forgetPartitions(tmId, jobId, partitionIds);
        if (!registry.isRegistered(tmId)) {
            released.accept(null);
            return;
        }
        transport.releasePartitions(tmId, jobId, partitionIds, error -> mainThread.execute(
                () -> released.accept(registry.isRegistered(tmId) ? error : null)));
    }

    /** Releases partitions kept from an earlier JobManager; see {@link ResourceManager#releaseKeptPartitions}. */
    void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        kept.forgetPartitions(tmId, jobId, partitionIds);
        if (registry.isRegistered(tmId)) {
            transport.releaseKeptPartitions(tmId, jobId, partitionIds);
        }
    }
}

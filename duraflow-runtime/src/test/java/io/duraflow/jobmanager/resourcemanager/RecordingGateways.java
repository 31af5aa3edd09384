package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.mailbox.Mailbox;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Records what a job master tells the TaskManagers. A deployment can be made to fail: its
 * failure callback then runs through the scheduler, as the real gateways do it from the RPC
 * callback thread via the main thread. As a {@link TaskManagerTransport} it lets a real
 * ResourceManager (and a Dispatcher) run without sockets.
 */
public final class RecordingGateways implements TaskManagerTransport {
    public record Deployment(String tmId, TaskDeployment task) {
        public AttemptId attempt() {
            return task.getAttempt();
        }

        public int vertex() {
            return task.getAttempt().getVertex();
        }

        public int subtask() {
            return task.getAttempt().getSubtask();
        }

        public int attemptNumber() {
            return task.getAttempt().getAttempt();
        }
    }

    public record Cancel(String tmId, AttemptId attempt) {}

    /** {@code session}: the JobManager session of the call that carried it. */
    public record Trigger(String tmId, String session, io.duraflow.rpc.proto.TriggerCheckpointRequest request) {}

    public record Notification(String tmId, io.duraflow.rpc.proto.CheckpointNotification notification) {}

    /** {@code sequence}: the event's place among those sent to its attempt (see OperatorEventToTask.sequence). */
    public record Event(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {}

    /** A release; {@code onlyKept}: of partitions kept from an earlier JobManager only. */
    public record Release(String tmId, String jobId, List<String> partitionIds, boolean onlyKept) {
        public Release(String tmId, String jobId, List<String> partitionIds) {
            this(tmId, jobId, partitionIds, false);
        }
    }

    private final Mailbox mainThread;
    private final Deque<Throwable> deployErrors = new ArrayDeque<>();
    private final Deque<String> lateDeployErrors = new ArrayDeque<>();
    private final List<Deployment> deployments = new ArrayList<>();
    private final List<Deployment> refused = new ArrayList<>();
    private final List<Cancel> cancels = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Release> releases = new ArrayList<>();
    private final List<Trigger> triggers = new ArrayList<>();
    private final List<Notification> notifications = new ArrayList<>();
    private final List<io.duraflow.rpc.proto.CheckpointNotifications> notificationCalls = new ArrayList<>();
    private int triggerCalls;
    private final Map<String, String> connected = new LinkedHashMap<>();

    public RecordingGateways(Mailbox mainThread) {
        this.mainThread = mainThread;
    }

    /** The next deployment is refused with this error (reported on the next scheduler step). */
    public void refuseNextDeploy(String error) {
        deployErrors.add(new IOException(error));
    }

    /** The next deployment is refused with this error (say, UNAVAILABLE: nobody listens). */
    public void refuseNextDeploy(Throwable error) {
        deployErrors.add(error);
    }

    private java.util.function.BiConsumer<String, String> suspicions = (tmId, why) -> {
        throw new AssertionError("nobody listens for suspicions");
    };

    @Override
    public void reportSuspicionsTo(java.util.function.BiConsumer<String, String> suspect) {
        this.suspicions = suspect;
    }

    /** Reports a suspicion as the real transport does, from whatever thread calls this. */
    public void reportSuspicion(String tmId, String why) {
        suspicions.accept(tmId, why);
    }

    /**
     * The next deployment reaches its TaskManager, but the call still reports this error (say,
     * its deadline passed), on the next scheduler step.
     */
    public void failNextDeployAfterDelivery(String error) {
        lateDeployErrors.add(error);
    }

    @Override
    public void connect(String tmId, String address) {
        connected.put(tmId, address);
    }

    @Override
    public void disconnect(String tmId) {
        connected.remove(tmId);
    }

    @Override
    public void close() {
        connected.clear();
    }

    /** TaskManagers connected now, by id, with their addresses. */
    public Map<String, String> connected() {
        return Map.copyOf(connected);
    }

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        Throwable error = deployErrors.poll();
        if (error != null) {
            refused.add(new Deployment(tmId, deployment));
            mainThread.execute(() -> onFailure.accept(error));
            return;
        }
        deployments.add(new Deployment(tmId, deployment));
        String lateError = lateDeployErrors.poll();
        if (lateError != null) {
            mainThread.execute(() -> onFailure.accept(new IOException(lateError)));
        }
    }

    /** A ping that waits for the test to answer it ({@link #answerPing}). */
    public record Ping(String tmId, long timeoutMs, Consumer<PingResult> result) {}

    private final List<Ping> pings = new ArrayList<>();
    private final List<Ping> pendingPings = new ArrayList<>();

    /** Pings wait until the test answers them. */
    @Override
    public void ping(String tmId, long timeoutMs, Consumer<PingResult> result) {
        Ping ping = new Ping(tmId, timeoutMs, result);
        pings.add(ping);
        pendingPings.add(ping);
    }

    /** Every ping sent, in order. */
    public List<Ping> pings() {
        return List.copyOf(pings);
    }

    /** Pings not answered yet, in order. */
    public List<Ping> pendingPings() {
        return List.copyOf(pendingPings);
    }

    /** Answers the oldest unanswered ping of {@code tmId}, from this thread (the transport may use any). */
    public void answerPing(String tmId, PingResult result) {
        Ping ping = pendingPings.stream().filter(p -> p.tmId().equals(tmId)).findFirst()
                .orElseThrow(() -> new AssertionError("no unanswered ping of " + tmId + " in " + pendingPings));
        pendingPings.remove(ping);
        ping.result().accept(result);
    }

    @Override
    public void cancel(String tmId, AttemptId attempt) {
        cancels.add(new Cancel(tmId, attempt));
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        events.add(new Event(tmId, attempt, nodeId, sequence, event));
    }

    @Override
    public void triggerCheckpoint(String tmId, io.duraflow.rpc.proto.TriggerCheckpointRequests calls) {
        triggerCalls++;
        calls.getTriggersList().forEach(request -> triggers.add(new Trigger(tmId, calls.getJmSessionId(), request)));
    }

    @Override
    public void notifyCheckpoint(String tmId, io.duraflow.rpc.proto.CheckpointNotifications calls) {
        notificationCalls.add(calls);
        calls.getNotificationsList().forEach(notification -> notifications.add(new Notification(tmId, notification)));
    }

    /** How many calls carried {@link #triggers()}: one per TaskManager and checkpoint. */
    public int triggerCalls() {
        return triggerCalls;
    }

    /** Checkpoint triggers sent to source tasks, in order. */
    public List<Trigger> triggers() {
        return List.copyOf(triggers);
    }

    /** Checkpoint notifications (complete or aborted) sent to tasks, in order. */
    public List<Notification> notifications() {
        return List.copyOf(notifications);
    }

    /** The calls that carried {@link #notifications()}: one per TaskManager and checkpoint outcome. */
    public List<io.duraflow.rpc.proto.CheckpointNotifications> notificationCalls() {
        return List.copyOf(notificationCalls);
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
        releases.add(new Release(tmId, jobId, List.copyOf(partitionIds)));
    }

    private final Deque<Throwable> releaseErrors = new ArrayDeque<>();
    private final List<Release> acknowledgedReleases = new ArrayList<>();

    /** The releases whose answer someone waited for (the job's cleanup), in order; also in {@link #releases}. */
    public List<Release> acknowledgedReleases() {
        return List.copyOf(acknowledgedReleases);
    }

    private final Map<String, Throwable> releaseErrorsByTm = new LinkedHashMap<>();

    /** The next {@code count} acknowledged releases (of any TaskManager) fail with {@code error}. */
    public void failNextReleases(int count, Throwable error) {
        for (int i = 0; i < count; i++) {
            releaseErrors.add(error);
        }
    }

    /** Every acknowledged release to {@code tmId} fails with {@code error} (say, it does not answer). */
    public void failReleasesTo(String tmId, Throwable error) {
        releaseErrorsByTm.put(tmId, error);
    }

    /** Records the release and answers it at once: confirmed, unless a failure was set up. */
    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds,
            Consumer<Throwable> answered) {
        releases.add(new Release(tmId, jobId, List.copyOf(partitionIds)));
        acknowledgedReleases.add(new Release(tmId, jobId, List.copyOf(partitionIds)));
        Throwable error = releaseErrorsByTm.containsKey(tmId) ? releaseErrorsByTm.get(tmId) : releaseErrors.poll();
        answered.accept(error);
    }

    @Override
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        releases.add(new Release(tmId, jobId, List.copyOf(partitionIds), true));
    }

    /** Deployments that reached a TaskManager, in order. */
    public List<Deployment> deployments() {
        return List.copyOf(deployments);
    }

    /** Deployments that were refused by {@link #refuseNextDeploy}. */
    public List<Deployment> refused() {
        return List.copyOf(refused);
    }

    public List<Cancel> cancels() {
        return List.copyOf(cancels);
    }

    public List<Event> events() {
        return List.copyOf(events);
    }

    public List<Event> eventsTo(AttemptId attempt) {
        return events.stream().filter(e -> e.attempt().equals(attempt)).toList();
    }

    public List<Release> releases() {
        return List.copyOf(releases);
    }
}

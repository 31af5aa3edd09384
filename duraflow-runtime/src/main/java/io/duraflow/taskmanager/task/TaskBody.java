package io.duraflow.taskmanager.task;

import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What one runtime mode's task does between its RUNNING report and its final one: a batch task
 * reads blocking inputs and writes partition files, a streaming task runs a pipelined chain and
 * takes checkpoints. {@link Task} keeps what both share (the thread, cancellation, the order of
 * operator events, the final report) and does not pick the mode itself: whoever creates the task
 * passes the mode's {@link Factory}, so this package depends on neither mode's.
 *
 * <p>Threading: every method runs on the task thread, {@link #run} directly and the others as
 * mails {@link Task} puts into its {@link MailboxProcessor} for whatever thread called it.
 */
public interface TaskBody {
    /** Makes the body of one task; called once, by the {@link Task}'s constructor. */
    @FunctionalInterface
    interface Factory {
        TaskBody create(Context context);
    }

    /**
     * What a body shares with its {@link Task}.
     *
     * @param metrics       the metrics the task's user code registers; sampled with the counters
     * @param defaultAction plugs the body's default action into {@code mailbox}'s loop
     * @param cancelled     whether the task was cancelled; any thread may set it
     */
    record Context(TaskDeployment deployment, JobGraph graph, TaskEnvironment environment, TaskCounters counters,
            MetricRegistry metrics, MailboxProcessor mailbox, SinkContext sinkContext,
            Consumer<MailboxProcessor.DefaultAction> defaultAction, BooleanSupplier cancelled) {
        public AttemptId attempt() {
            return deployment.getAttempt();
        }

        public JobVertex vertex() {
            return graph.vertex(deployment.getAttempt().getVertex());
        }

        /** @throws InterruptedException if the task was cancelled, so it reports CANCELED */
        public void checkCancelled() throws InterruptedException {
            if (cancelled.getAsBoolean()) {
                throw new InterruptedException("task cancelled");
            }
        }
    }

    /** What the FINISHED report carries besides the task's state and counters. */
    record Finished(List<SubpartitionSizes> outputs, List<CollectedResult> collected) {}

    /**
     * Whether this is a streaming task's body: only those take checkpoints and have their
     * counters sampled for the TaskManager's heartbeat.
     */
    boolean isStreaming();

    /**
     * Runs the task to its end and releases everything the body made, also when it throws.
     *
     * @return what the FINISHED report carries
     * @throws Exception why the task failed ({@link InterruptedException} once it was cancelled)
     */
    Finished run() throws Exception;

    /** An operator event from the enumerator of the task's source. */
    void onOperatorEvent(OperatorEvent event) throws Exception;

    /** The JobManager starts a checkpoint at this task; {@link Task} calls it only if {@link #isStreaming}. */
    default void onCheckpointTrigger(TriggerCheckpointRequest request) throws Exception {
        throw new IllegalStateException("a task that is not streaming takes no checkpoints");
    }

    /** A checkpoint completed or was aborted; {@link Task} calls it only if {@link #isStreaming}. */
    default void onCheckpointNotification(CheckpointNotification notification) throws Exception {}
}

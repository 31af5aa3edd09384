package io.duraflow.taskmanager.task;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of one parallel instance of a vertex, run on its own thread: report RUNNING, run
 * the mode's {@link TaskBody} (read the inputs or the source, push records through the operator
 * chain, write the outputs), release the slot, and tell the JobManager how it ended.
 *
 * <p>The task thread runs a {@link MailboxProcessor} loop whose default action the body sets:
 * it processes the next part of the input. Other threads only put mails (operator events,
 * checkpoint triggers and notifications, cancel) and, to cancel, interrupt the thread, so only
 * the task thread touches the operators.
 */
public final class Task implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    private final TaskDeployment deployment;
    private final AttemptId attempt;
    private final JobGraph graph;
    private final JobVertex vertex;
    private final TaskEnvironment environment;
    private final TaskCounters counters = new TaskCounters();
    /** The metrics user code registers (readers, writers, committers, functions); task thread only. */
    private final MetricRegistry metrics;
    /** Operator events and a source task's checkpoint triggers, in the order the JobManager sent them. */
    private final OperatorEventOrder<Object> eventOrder = new OperatorEventOrder<>(this::applyInOrder);
    /** The task thread's loop; the body sets its default action before it starts (mails put earlier wait in it). */
    private final MailboxProcessor mailbox = new MailboxProcessor(controller -> this.defaultAction.run(controller));
    private MailboxProcessor.DefaultAction defaultAction;
    private volatile boolean cancelled;
    /** The task thread while it may be interrupted; set and cleared under {@link #interruptLock}. */
    private Thread thread;
    /** Once the thread is cleared, no cancel() can interrupt what the task thread does next (its final report). */
    private final Object interruptLock = new Object();
    /** What the task does in its mode (batch or streaming). */
    private final TaskBody body;

    /** @param bodies the body of the job's runtime mode */
    public Task(TaskDeployment deployment, JobGraph graph, TaskEnvironment environment, TaskBody.Factory bodies) {
        this.deployment = deployment;
        this.attempt = deployment.getAttempt();
        this.graph = graph;
        this.vertex = graph.vertex(attempt.getVertex());
        this.environment = environment;
        this.metrics = new MetricRegistry((gauge, failure) -> LOG.warn("{}: metric {} gives no value: {}",
                Rpc.describe(attempt), gauge, failure.toString()));
        this.body = bodies.create(new TaskBody.Context(deployment, graph, environment, counters, metrics, mailbox,
                sinkContext(), action -> this.defaultAction = action, () -> cancelled));
    }

    public AttemptId attempt() {
        return attempt;
    }

    /**
     * Called from an RPC thread: an event from the enumerator, applied on the task thread in the
     * order of {@code sequence} (see {@link OperatorEventOrder}; 0: at once).
     */
    public void deliver(long sequence, OperatorEvent event) {
        eventOrder.accept(sequence, event);
    }

    /** What {@link #eventOrder} lets through, in the order it was sent. */
    private void applyInOrder(Object message) {
        if (message instanceof TriggerCheckpointRequest trigger) {
            mailbox.put(() -> body.onCheckpointTrigger(trigger));
        } else if (!((OperatorEvent) message).hasSequenceSkipped()) {
            deliver((OperatorEvent) message);
        }
    }

    /** Called from an RPC thread: the enumerator answered; applied on the task thread. */
    public void deliver(OperatorEvent event) {
        mailbox.put(() -> body.onOperatorEvent(event));
    }

    /**
     * Any thread (the TaskManager's heartbeat): the counters the task last sampled, or null (none
     * yet); asks the task thread for a fresh sample, which the next heartbeat carries. The sample
     * has its own timestamp, so it being one heartbeat old does not skew the rates the JobManager
     * computes. Batch and streaming tasks alike: both run their mailbox between batches of input.
     */
    public io.duraflow.rpc.proto.TaskMetricsSample sampleMetrics() {
        TaskTimes times = mailbox.times();
        mailbox.put(() -> times.sample(counters, metrics));
        return times.latest();
    }

    /**
     * Any thread (a metrics scrape): the counters a running task last sampled for its heartbeat,
     * with what names it; null before its first sample. Asks the task for nothing, so a scrape adds
     * no work to the task thread.
     */
    public TaskMetricsView metricsView() {
        TaskTimes times = mailbox.times();
        io.duraflow.rpc.proto.TaskMetricsSample latest = times.latest();
        return latest == null ? null : new TaskMetricsView(attempt, graph.jobName(), vertex.name(),
                times.startedAtNanos(), latest, times.latestUserMetrics());
    }

    /** Any thread: the JobManager starts a checkpoint at this task (streaming only). */
    public void triggerCheckpoint(TriggerCheckpointRequest request) {
        if (!body.isStreaming()) {
            throw new IllegalStateException("task " + Rpc.describe(attempt) + " is a batch task and takes no checkpoints");
        }
        // A source's trigger has its place among the enumerator's events (0: none, take it at once).
        eventOrder.accept(request.getEventSequence(), request);
    }

    /** Any thread: a checkpoint completed or was aborted; batch tasks take none and ignore it. */
    public void notifyCheckpoint(CheckpointNotification notification) {
        if (body.isStreaming()) {
            mailbox.put(() -> body.onCheckpointNotification(notification));
        }
    }

    /**
     * Any thread: the task stops at its next mail check (between two source batches or input
     * buffers) and is interrupted in case it blocks (a fetch, a wait for splits, user code).
     */
    public void cancel() {
        cancelled = true;
        mailbox.put(() -> {
            throw new InterruptedException("task cancelled");
        });
        synchronized (interruptLock) {
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    /**
     * Runs the task, then releases everything it held (the body releases what it made; then the
     * slot and the right to be interrupted) exactly once, and only then reports how it ended, so
     * that neither a late cancel nor the next task in the slot can get in the way of the report.
     */
    @Override
    public void run() {
        synchronized (interruptLock) {
            thread = Thread.currentThread();
        }
        String name = Rpc.describe(attempt) + " " + vertex.name();
        LOG.info("Task {} starting", name);
        environment.reportState(update(TaskState.RUNNING).build());
        TaskStateUpdate.Builder finished = null;
        Throwable failure = null;
        try {
            TaskBody.Finished result = body.run();
            finished = update(TaskState.FINISHED).addAllOutputs(result.outputs())
                    .addAllCollected(result.collected());
            LOG.info("Task {} finished: {} records in, {} out", name, counters.recordsIn, counters.recordsOut);
        } catch (Throwable t) {
            failure = t;
        } finally {
            environment.releaseSlot(attempt);
            synchronized (interruptLock) {
                thread = null;
            }
            Thread.interrupted();
        }
        if (failure == null) {
            environment.reportState(finished.build());
        } else {
            reportFailure(name, failure);
        }
    }

    private void reportFailure(String name, Throwable t) {
        Throwable cause = t instanceof ChainedOperators.ChainException && t.getCause() != null ? t.getCause() : t;
        if (cancelled) {
            LOG.info("Task {} cancelled", name);
            environment.reportState(update(TaskState.CANCELED).build());
            return;
        }
        TaskStateUpdate.Builder failed = update(TaskState.FAILED).setFailure(oneLine(cause))
                .setFailureDetail(stackTrace(cause)).setNonRetriable(isNonRetriable(cause));
        Throwable search = cause;
        while (search != null) {
            if (search instanceof PartitionNotFoundException missing) {
                failed.setMissingPartitionId(missing.partitionId());
                break;
            }
            search = search.getCause();
        }
        PeerUnreachableException unreachable = PeerUnreachableException.find(cause);
        if (unreachable != null) {
            failed.setUnreachableTmId(unreachable.taskManagerId()).setUnreachableTmAddress(unreachable.address());
        }
        LOG.warn("Task {} failed: {}", name, oneLine(cause), cause);
        environment.reportState(failed.build());
    }

    /**
     * Whether running the task again cannot succeed, so the job should fail at once: the cause
     * chain holds a {@link NonRetriableException} (user code or the engine says so), a {@link
     * LinkageError} (a class missing, incompatible or failing its initialization: the same
     * classpath fails the same way) or a {@link ClassNotFoundException}. Anything else, including
     * an {@link OutOfMemoryError} or an I/O error, may pass on another try or another TaskManager.
     */
    static boolean isNonRetriable(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NonRetriableException || t instanceof LinkageError
                    || t instanceof ClassNotFoundException) {
                return true;
            }
        }
        return false;
    }

    private TaskStateUpdate.Builder update(TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setTmId(environment.taskManagerId()).setAttempt(attempt).setState(state)
                .setRecordsIn(counters.recordsIn).setRecordsOut(counters.recordsOut);
    }

    private SinkContext sinkContext() {
        Configuration checkpointing = Configuration.fromMap(deployment.getConfigMap());
        return new SinkContext() {
            @Override
            public String jobId() {
                return attempt.getJobId();
            }

            @Override
            public int subtaskIndex() {
                return attempt.getSubtask();
            }

            @Override
            public int parallelism() {
                return deployment.getParallelism();
            }

            @Override
            public int attemptNumber() {
                return attempt.getAttempt();
            }

            @Override
            public Optional<Duration> checkpointInterval() {
                return Optional.ofNullable(checkpointing.get(CheckpointingOptions.INTERVAL));
            }

            @Override
            public Duration checkpointTimeout() {
                return checkpointing.get(CheckpointingOptions.TIMEOUT);
            }

            @Override
            public MetricGroup metrics() {
                return metrics;
            }
        };
    }

    /** A failure as one line: its type and the first line of its message. */
    public static String oneLine(Throwable t) {
        String message = t.getMessage();
        String text = message == null || message.isBlank() ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + message;
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String trace = out.toString();
        return trace.length() > 16_000 ? trace.substring(0, 16_000) : trace;
    }
}

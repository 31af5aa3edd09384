package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.grpc.Status;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a task in its slot: a deployment takes a slot, the task starts on a task thread
 * once its job's plan is built (or fails before it started), gets the JobManager's cancels and
 * operator events while it runs, and when it ended it leaves its slot and its final report goes
 * out through the {@link TaskReporter}, or is parked while the task is kept for a new leader
 * ({@link KeptTasks}).
 *
 * <p>A task whose operator event cannot be sent fails ({@link #failBySend}). A task cannot be
 * failed from outside, so it is cancelled, and the CANCELED report it then sends is reported as
 * FAILED with that failure, as if the task had thrown it. A request to cancel the task, before or
 * after, wins, as it does within the task itself; a task that finished regardless reports that.
 *
 * <p>Mailbox only, like the executor that owns it.
 */
final class TaskLifecycle {
    /** Logs as the TaskExecutor, whose lines these were, so that searches of the logs still find them. */
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

    private final String tmId;
    private final Mailbox mailbox;
    private final TaskExecutorServices services;
    private final TaskSlotTable slots;
    private final JobPlanCache plans;
    private final FinalReports finalReports;
    private final TaskReporter reporter;
    private final KeptTasks kept;
    private final JobManagerConnection connection;
    /** What the tasks are given; the executor, which hands their calls to the mailbox. */
    private final TaskEnvironment environment;
    /** Tasks failed by {@link #failBySend} that left their slot and whose final report has not come yet. */
    private final Map<String, IllegalStateException> failedBySend = new HashMap<>();

    TaskLifecycle(String tmId, Mailbox mailbox, TaskExecutorServices services, TaskSlotTable slots, JobPlanCache plans,
            FinalReports finalReports, TaskReporter reporter, KeptTasks kept, JobManagerConnection connection,
            TaskEnvironment environment) {
        this.tmId = tmId;
        this.mailbox = mailbox;
        this.services = services;
        this.slots = slots;
        this.plans = plans;
        this.finalReports = finalReports;
        this.reporter = reporter;
        this.kept = kept;
        this.connection = connection;
        this.environment = environment;
    }

    /**
     * Takes a slot and answers at once; the task starts when its job's plan is built (at once if
     * it is known), or fails with the reason the plan could not be built.
     */
    void deploy(TaskDeployment deployment, TaskExecutor.Reply reply) {
        mailbox.assertRunningInMailbox();
        String key = key(deployment.getAttempt());
        if (slots.get(deployment.getAttempt()) != null || finalReports.contains(deployment.getAttempt())) {
            reply.refuse(Status.ALREADY_EXISTS.withDescription("attempt " + key + " already ran or runs on " + tmId)
                    .asRuntimeException());
            return;
        }
        if (slots.isFull(deployment)) {
            reply.refuse(Status.RESOURCE_EXHAUSTED.withDescription("all " + slots.capacity() + " slots of " + tmId
                    + " are busy").asRuntimeException());
            return;
        }
        TaskSlotTable.Slot slot = slots.take(deployment);
        reply.ok();
        plans.plan(deployment).whenComplete((graph, error) -> mailbox.execute(
                () -> planReady(key, slot, graph, error)));
    }

    private void planReady(String key, TaskSlotTable.Slot slot, JobGraph graph, Throwable error) {
        mailbox.assertRunningInMailbox();
        if (slots.get(slot.deployment.getAttempt()) != slot) {
            return;  // cancelled, or the JobManager was lost, while the plan was built
        }
        TaskDeployment deployment = slot.deployment;
        String problem = error != null ? error.getMessage()
                : graph.fingerprint().equals(deployment.getFingerprint()) ? null
                : "plan fingerprint mismatch for job " + deployment.getAttempt().getJobId() + ": JobManager has "
                        + deployment.getFingerprint() + ", TaskManager " + tmId + " built " + graph.fingerprint()
                        + "; make sure both run the same version of the job's jar";
        if (problem == null) {
            try {
                slot.task = services.tasks().create(deployment, graph, environment);
                TaskExecutorServices.RunningTask task = slot.task;
                // The job's code runs with its class loader as the thread's context loader (libraries look there).
                ClassLoader jobClasses = plans.jobClassLoader(deployment.getAttempt().getJobId());
                services.taskThreads().execute(jobClasses == null ? task::run : () -> {
                    Thread thread = Thread.currentThread();
                    ClassLoader before = thread.getContextClassLoader();
                    thread.setContextClassLoader(jobClasses);
                    try {
                        task.run();
                    } finally {
                        thread.setContextClassLoader(before);
                    }
                });
                return;
            } catch (RuntimeException e) {
                problem = "cannot start the task: " + e;
            }
        }
        freeSlot(deployment.getAttempt());
        LOG.warn("Task {} failed before it started: {}", key, problem);
        ended(reporter.finalReport(deployment, TaskState.FAILED).setFailure(problem).build());
    }

    /** A task left its slot (ended, or never started). */
    void freeSlot(AttemptId attempt) {
        mailbox.assertRunningInMailbox();
        TaskSlotTable.Slot slot = slots.get(attempt);
        if (slot != null && slot.failure != null && !slot.cancelRequested) {
            failedBySend.put(key(attempt), slot.failure);
        }
        if (slots.free(attempt)) {
            connection.slotsFreed();
        }
    }

    void cancel(AttemptId attempt, TaskExecutor.Reply reply) {
        mailbox.assertRunningInMailbox();
        kept.forget(attempt);
        TaskSlotTable.Slot slot = slots.get(attempt);
        if (slot != null && slot.task != null) {
            slot.cancelTask();
        } else if (slot != null) {
            freeSlot(attempt);
            ended(reporter.finalReport(slot.deployment, TaskState.CANCELED).build());
        }
        reply.ok();
    }

    void deliver(OperatorEventToTask event, TaskExecutor.Reply reply) {
        mailbox.assertRunningInMailbox();
        TaskSlotTable.Slot slot = slots.get(event.getAttempt());
        if (slot != null && slot.task != null) {
            long sequence = slot.absolute(event.getSequence());
            if (event.getEvent().hasAddSplits() || event.getEvent().hasNoMoreSplits()) {
                slot.unansweredRequest = null;
            }
            if (event.getEvent().hasAddSplits()) {
                slot.splitsReceived.addAll(event.getEvent().getAddSplits().getSplitsList());
                if (slot.streaming != null) {
                    slot.streaming.splitsReceived(sequence, event.getEvent().getAddSplits().getSplitsList());
                }
            }
            slot.lastSequence = Math.max(slot.lastSequence, sequence);
            slot.task.deliver(sequence, event.getEvent());
        } else {
            LOG.debug("Dropping an operator event for {}: the task is not running", Rpc.describe(event.getAttempt()));
        }
        reply.ok();
    }

    /** A task reported its state: RUNNING is sent once; a final report is kept until acknowledged. */
    void reported(TaskStateUpdate update) {
        mailbox.assertRunningInMailbox();
        if (TaskReporter.isFinal(update.getState())) {
            ended(update);
        } else {
            reporter.report(kept.stamp(update));
        }
    }

    /** A task ended (or was found unable to start): it leaves its slot, and its final report goes out. */
    void ended(TaskStateUpdate report) {
        mailbox.assertRunningInMailbox();
        freeSlot(report.getAttempt());
        IllegalStateException failure = failedBySend.remove(key(report.getAttempt()));
        if (failure != null && report.getState() == TaskState.CANCELED) {
            report = report.toBuilder().setState(TaskState.FAILED).setFailure(Task.oneLine(failure))
                    .setFailureDetail(stackTrace(failure)).build();
        }
        TaskStateUpdate stamped = kept.stamp(report);
        if (kept.ended(stamped)) {
            LOG.info("Kept task {} ended {} before a new leader decided on it; its report waits for that",
                    key(report.getAttempt()), report.getState());
            return;
        }
        reporter.ended(stamped);
    }

    /** One of the task's operator events cannot be sent: the task fails, unless it was cancelled or ended. */
    void failBySend(AttemptId attempt, IllegalStateException error) {
        mailbox.assertRunningInMailbox();
        TaskSlotTable.Slot slot = slots.get(attempt);
        if (slot != null && slot.task != null && slot.failTask(error)) {
            LOG.warn("Task {} failed: {}; stopping it", key(attempt), Task.oneLine(error));
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String trace = out.toString();
        return trace.length() > 16_000 ? trace.substring(0, 16_000) : trace;
    }

    private static String key(AttemptId attempt) {
        return Rpc.describe(attempt);
    }
}

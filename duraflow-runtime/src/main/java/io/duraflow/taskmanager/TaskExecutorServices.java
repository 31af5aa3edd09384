package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.mailbox.ThreadMailbox;

import io.duraflow.plan.JobGraph;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.taskmanager.task.batch.BatchTask;
import io.duraflow.taskmanager.task.streaming.StreamTask;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What a {@link TaskExecutor} runs on: its mailbox, how it reaches JobManagers, the threads of its
 * tasks and plan builds, and how it builds plans and tasks. {@link #production} outside tests;
 * the step-by-step test harness passes a manual mailbox, fake JobManagers and fake tasks.
 */
public record TaskExecutorServices(Mailbox mailbox, JobManagerClient.Factory clients, Executor taskThreads,
        Executor planBuilds, PlanBuilder planBuilder, TaskFactory tasks) {
    static TaskExecutorServices production(Consumer<Throwable> fatalError, long heartbeatTimeoutMs) {
        AtomicInteger taskIds = new AtomicInteger();
        AtomicInteger planIds = new AtomicInteger();
        return new TaskExecutorServices(new ThreadMailbox("taskmanager-main", fatalError),
                address -> new GrpcJobManagerClient(address, heartbeatTimeoutMs),
                Executors.newCachedThreadPool(daemon("task-", taskIds)),
                Executors.newCachedThreadPool(daemon("plan-build-", planIds)), JobPlans::build,
                (deployment, graph, environment) -> {
                    Task task = new Task(deployment, graph, environment,
                            graph.mode() == RuntimeMode.STREAMING ? StreamTask::new : BatchTask::new);
                    return new RunningTask() {
                        @Override
                        public void run() {
                            task.run();
                        }

                        @Override
                        public void cancel() {
                            task.cancel();
                        }

                        @Override
                        public void deliver(long sequence, OperatorEvent event) {
                            task.deliver(sequence, event);
                        }

                        @Override
                        public void triggerCheckpoint(io.duraflow.rpc.proto.TriggerCheckpointRequest request) {
                            task.triggerCheckpoint(request);
                        }

                        @Override
                        public void notifyCheckpoint(io.duraflow.rpc.proto.CheckpointNotification notification) {
                            task.notifyCheckpoint(notification);
                        }

                        @Override
                        public io.duraflow.rpc.proto.TaskMetricsSample sampleMetrics() {
                            return task.sampleMetrics();
                        }

                        @Override
                        public io.duraflow.taskmanager.task.TaskMetricsView metricsView() {
                            return task.metricsView();
                        }
                    };
                });
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix, AtomicInteger ids) {
        return r -> {
            Thread t = new Thread(r, prefix + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Builds a job's plan from its class; user code, so it runs on a plan-build thread. */
    public interface PlanBuilder {
        JobGraph build(String jobClass, Map<String, String> params, int defaultParallelism, RuntimeMode mode);
    }

    /** A task in a slot, as the executor handles it: started on a task thread, cancelled, given events. */
    public interface RunningTask {
        void run();

        void cancel();

        /** An operator event, the {@code sequence}-th sent to this attempt (0: unnumbered). */
        void deliver(long sequence, OperatorEvent event);

        /** A checkpoint starts at this (source) task; a task that takes no checkpoints fails. */
        default void triggerCheckpoint(io.duraflow.rpc.proto.TriggerCheckpointRequest request) {
            throw new IllegalStateException("task " + io.duraflow.rpc.Rpc.describe(request.getAttempt())
                    + " takes no checkpoints: it is not a streaming task");
        }

        /** A checkpoint completed or was aborted; tasks that take no checkpoints ignore it. */
        default void notifyCheckpoint(io.duraflow.rpc.proto.CheckpointNotification notification) {}

        /** The TaskManager's heartbeat: the running streaming task's last counter sample, or null. */
        default io.duraflow.rpc.proto.TaskMetricsSample sampleMetrics() {
            return null;
        }

        /** A metrics scrape: the running streaming task's last sample and names, or null; asks the task nothing. */
        default io.duraflow.taskmanager.task.TaskMetricsView metricsView() {
            return null;
        }
    }

    /** Makes the task of a deployment; a fake in tests. */
    public interface TaskFactory {
        RunningTask create(TaskDeployment deployment, JobGraph graph, TaskEnvironment environment);
    }
}

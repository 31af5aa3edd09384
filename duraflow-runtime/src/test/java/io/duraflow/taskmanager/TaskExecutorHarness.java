package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * A TaskExecutor driven step by step: a manual mailbox and clock, fake JobManagers whose calls the
 * test answers, fake tasks that end when the test says so. Nothing runs unless a test runs the
 * mailbox, so each test sees exactly one interleaving.
 */
final class TaskExecutorHarness implements AutoCloseable {
    static final String JOB = "job";
    static final String OWN_ADDRESS = "127.0.0.1:7000";
    static final LeaderInfo FIRST = new LeaderInfo("127.0.0.1:6001", "s1");
    static final LeaderInfo SECOND = new LeaderInfo("127.0.0.1:6002", "s2");
    static final long HEARTBEAT_MS = 1_000;
    static final long HEARTBEAT_TIMEOUT_MS = 5_000;
    static final JobGraph GRAPH = JobPlans.build(TinyJob.class.getName(), Map.of(), 1);

    /**
     * Tests with this tag run with {@code taskmanager.leader-loss.timeout} at 60 s, the others at 0
     * (cancel at a loss).
     */
    static final String KEEPS_TASKS = "keeps-tasks";
    static final long LEADER_LOSS_TIMEOUT_MS = 60_000;

    final ManualMailbox mailbox = ManualMailbox.guardingMailsOnly();
    final FakeJobManager jobManagers = new FakeJobManager();
    final List<Runnable> startedTaskThreads = new CopyOnWriteArrayList<>();
    final Map<String, FakeTask> tasks = new LinkedHashMap<>();
    /** The plan each task was started with, by subtask#attempt. */
    final Map<String, JobGraph> taskGraphs = new LinkedHashMap<>();
    /** Plan builds run inline unless a test queues or threads them. */
    Executor planBuilds = Runnable::run;
    TaskExecutorServices.PlanBuilder planBuilder = (jobClass, params, parallelism, mode) -> GRAPH;
    final Announcer leaders = new Announcer();
    final TaskExecutor executor;
    /** Threads a test started: shut down at {@link #close()}. */
    final List<ExecutorService> pools = new ArrayList<>();

    static final class FakeTask implements TaskExecutorServices.RunningTask {
        boolean started;
        boolean cancelled;
        final List<OperatorEvent> events = new ArrayList<>();
        final List<Long> sequences = new ArrayList<>();
        final List<TriggerCheckpointRequest> triggers = new ArrayList<>();
        final List<CheckpointNotification> notifications = new ArrayList<>();

        @Override
        public void run() {
            started = true;
        }

        @Override
        public void triggerCheckpoint(TriggerCheckpointRequest request) {
            triggers.add(request);
        }

        @Override
        public void notifyCheckpoint(CheckpointNotification notification) {
            notifications.add(notification);
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public void deliver(long sequence, OperatorEvent event) {
            events.add(event);
            sequences.add(sequence);
        }
    }

    /** Leader retrieval whose announcements the test makes. */
    static final class Announcer implements LeaderRetrieval {
        Consumer<LeaderInfo> listener;

        @Override
        public void start(Consumer<LeaderInfo> listener) {
            this.listener = listener;
        }

        @Override
        public LeaderInfo awaitLeader(Duration timeout) {
            return null;
        }

        @Override
        public void close() {}
    }

    /** What a request's caller got back. */
    static final class Answer implements TaskExecutor.Reply {
        boolean ok;
        StatusRuntimeException refused;

        @Override
        public void ok() {
            ok = true;
        }

        @Override
        public void refuse(StatusRuntimeException error) {
            refused = error;
        }

        boolean answered() {
            return ok || refused != null;
        }
    }

    /**
     * A started TaskExecutor with two slots. {@code keepsTasks}: with
     * {@code taskmanager.leader-loss.timeout} at {@value #LEADER_LOSS_TIMEOUT_MS} ms, else at 0 (its
     * tasks are cancelled at a loss of the leader).
     */
    TaskExecutorHarness(Path dir, boolean keepsTasks) throws Exception {
        Configuration config = new Configuration().set(TaskManagerOptions.SLOTS, 2)
                .set(TaskManagerOptions.LEADER_LOSS_TIMEOUT,
                        Duration.ofMillis(keepsTasks ? LEADER_LOSS_TIMEOUT_MS : 0))
                .set(ClusterOptions.HEARTBEAT_INTERVAL, Duration.ofMillis(HEARTBEAT_MS))
                .set(ClusterOptions.HEARTBEAT_TIMEOUT, Duration.ofMillis(HEARTBEAT_TIMEOUT_MS));
        TaskExecutorServices services = new TaskExecutorServices(mailbox, jobManagers, startedTaskThreads::add,
                runnable -> planBuilds.execute(runnable),
                (jobClass, params, parallelism, mode) -> planBuilder.build(jobClass, params, parallelism, mode),
                (deployment, graph, environment) -> {
                    FakeTask task = new FakeTask();
                    tasks.put(deployment.getAttempt().getSubtask() + "#" + deployment.getAttempt().getAttempt(), task);
                    taskGraphs.put(deployment.getAttempt().getSubtask() + "#" + deployment.getAttempt().getAttempt(),
                            graph);
                    return task;
                });
        executor = new TaskExecutor(config, leaders, dir, services);
        executor.begin(OWN_ADDRESS);
    }

    @Override
    public void close() {
        pools.forEach(ExecutorService::shutdownNow);
    }

    void register(LeaderInfo leader) {
        leaders.listener.accept(leader);
        mailbox.runDue();
        answerRegistration(leader);
    }

    void answerRegistration(LeaderInfo leader) {
        FakeJobManager.last(jobManagers.registrations).answer().complete(RegisterTaskManagerResponse.newBuilder()
                .setJmSessionId(leader.sessionId()).build());
        mailbox.runDue();
    }

    /** The next heartbeat the executor sends (the clock moves one interval). */
    TaskManagerHeartbeat heartbeat() {
        int before = jobManagers.heartbeats.size();
        mailbox.advance(HEARTBEAT_MS);
        assertThat(jobManagers.heartbeats).hasSize(before + 1);
        return FakeJobManager.last(jobManagers.heartbeats).request();
    }

    void answerHeartbeat(JobManagerHeartbeat answer) {
        FakeJobManager.last(jobManagers.heartbeats).answer().complete(answer);
        mailbox.runDue();
    }

    Answer deploy(LeaderInfo leader, int subtask, int attemptNumber) {
        return deploy(leader, subtask, attemptNumber, "");
    }

    Answer deploy(LeaderInfo leader, int subtask, int attemptNumber, String slot) {
        Answer answer = new Answer();
        executor.deploy(TaskDeployment.newBuilder().setJmSessionId(leader.sessionId())
                .setAttempt(attempt(subtask, attemptNumber)).setJobClass(TinyJob.class.getName())
                .setDefaultParallelism(1).setFingerprint(GRAPH.fingerprint()).setParallelism(1).setSlot(slot).build(),
                answer);
        return answer;
    }

    /** What a task thread does when its task ends: free the slot, then report. */
    void endTask(AttemptId attempt, TaskState state) {
        endTask(FakeJobManager.last(jobManagers.registrations).answer().join().getJmSessionId(), attempt, state);
    }

    void endTask(String session, AttemptId attempt, TaskState state) {
        executor.releaseSlot(attempt);
        executor.reportState(TaskStateUpdate.newBuilder().setJmSessionId(session).setTmId(executor.taskManagerId())
                .setAttempt(attempt).setState(state).setRecordsOut(42).build());
        mailbox.runDue();
    }

    List<TaskStateUpdate> reportsOf(TaskState state) {
        return jobManagers.reports.stream().map(FakeJobManager.Call::request).filter(r -> r.getState() == state)
                .toList();
    }

    static AttemptId attempt(int subtask, int attemptNumber) {
        return AttemptId.newBuilder().setJobId(JOB).setVertex(0).setSubtask(subtask).setAttempt(attemptNumber).build();
    }
}

package io.duraflow.taskmanager;

import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.TaskAttemptState;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TaskExecutor driven step by step: a manual mailbox and clock, fake JobManagers whose calls
 * the test answers, fake tasks that end when the test says so. Nothing runs unless a test runs
 * the mailbox, so each test sees exactly one interleaving.
 */
class TaskExecutorTest {
    private static final String JOB = "job";
    private static final String OWN_ADDRESS = "127.0.0.1:7000";
    private static final LeaderInfo FIRST = new LeaderInfo("127.0.0.1:6001", "s1");
    private static final LeaderInfo SECOND = new LeaderInfo("127.0.0.1:6002", "s2");
    private static final long HEARTBEAT_MS = 1_000;
    private static final long HEARTBEAT_TIMEOUT_MS = 5_000;
    private static final JobGraph GRAPH = JobPlans.build(TinyJob.class.getName(), Map.of(), 1);

    @TempDir
    Path dir;

    private final ManualMailbox mailbox = ManualMailbox.guardingMailsOnly();
    private final FakeJobManager jobManagers = new FakeJobManager();
    private final List<Runnable> startedTaskThreads = new CopyOnWriteArrayList<>();
    private final Map<String, FakeTask> tasks = new LinkedHashMap<>();
    /** The plan each task was started with, by subtask#attempt. */
    private final Map<String, JobGraph> taskGraphs = new LinkedHashMap<>();
    /** Plan builds run inline unless a test queues or threads them. */
    private java.util.concurrent.Executor planBuilds = Runnable::run;
    private TaskExecutorServices.PlanBuilder planBuilder = (jobClass, params, parallelism, mode) -> GRAPH;
    private final Announcer leaders = new Announcer();
    private TaskExecutor executor;
    private final List<ExecutorService> pools = new ArrayList<>();

    private static final class FakeTask implements TaskExecutorServices.RunningTask {
        boolean started;
        boolean cancelled;
        final List<OperatorEvent> events = new ArrayList<>();
        final List<Long> sequences = new ArrayList<>();
        final List<io.duraflow.rpc.proto.TriggerCheckpointRequest> triggers = new ArrayList<>();
        final List<io.duraflow.rpc.proto.CheckpointNotification> notifications = new ArrayList<>();

        @Override
        public void run() {
            started = true;
        }

        @Override
        public void triggerCheckpoint(io.duraflow.rpc.proto.TriggerCheckpointRequest request) {
            triggers.add(request);
        }

        @Override
        public void notifyCheckpoint(io.duraflow.rpc.proto.CheckpointNotification notification) {
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
    private static final class Announcer implements LeaderRetrieval {
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
    private static final class Answer implements TaskExecutor.Reply {
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

    /** Tests with this tag run with {@code taskmanager.leader-loss.timeout} at 60 s, the others at 0 (cancel at a loss). */
    private static final String KEEPS_TASKS = "keeps-tasks";
    private static final long LEADER_LOSS_TIMEOUT_MS = 60_000;

    @BeforeEach
    void create(org.junit.jupiter.api.TestInfo test) throws Exception {
        Configuration config = new Configuration().set(TaskManagerOptions.SLOTS, 2)
                .set(TaskManagerOptions.LEADER_LOSS_TIMEOUT,
                        Duration.ofMillis(test.getTags().contains(KEEPS_TASKS) ? LEADER_LOSS_TIMEOUT_MS : 0))
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

    @AfterEach
    void close() {
        pools.forEach(ExecutorService::shutdownNow);
    }

    // ------------------------------------------------------------------ registration

    @Test
    void registersWithTheLeaderAndLetsRequestsOfItsSessionWaitForTheAnswer() {
        leaders.listener.accept(FIRST);
        mailbox.runDue();

        assertThat(jobManagers.registrations).singleElement().satisfies(call -> {
            assertThat(call.address()).isEqualTo(FIRST.address());
            assertThat(call.request().getAddress()).isEqualTo(OWN_ADDRESS);
            assertThat(call.request().getSlots()).isEqualTo(2);
        });
        Answer early = deploy(FIRST, 0, 0);
        mailbox.runDue();
        assertThat(early.answered()).as("a deployment of the session being registered waits").isFalse();

        answerRegistration(FIRST);

        assertThat(early.ok).isTrue();
        assertThat(startedTaskThreads).hasSize(1);
    }

    @Test
    void aRegistrationThatTimesOutIsAskedAgainInTheSameRegistrationWhileDeploymentsOfItsSessionWait() {
        // Seen in the job result store failover tests and BatchRecoveryIT under load: the call timed out after the
        // JobManager had registered this TaskManager and deployed here; registering anew made it
        // drop the first registration as a lost TaskManager (failing those tasks, forgetting
        // finished output) while the deployments ran here regardless.
        leaders.listener.accept(FIRST);
        mailbox.runDue();
        String registrationId = FakeJobManager.last(jobManagers.registrations).request().getRegistrationId();
        Answer early = deploy(FIRST, 0, 0);
        mailbox.runDue();

        FakeJobManager.last(jobManagers.registrations).answer()
                .completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException());
        mailbox.runDue();

        assertThat(jobManagers.registrations).hasSize(2);
        assertThat(FakeJobManager.last(jobManagers.registrations).request().getRegistrationId())
                .isNotEmpty().isEqualTo(registrationId);
        assertThat(early.answered()).as("the deployment still waits for the answer").isFalse();

        answerRegistration(FIRST);

        assertThat(early.ok).isTrue();
        assertThat(startedTaskThreads).hasSize(1);
    }

    @Test
    void aTaskManagerThatGaveItsJobManagerUpRegistersInANewRegistration() {
        register(FIRST);
        String first = FakeJobManager.last(jobManagers.registrations).request().getRegistrationId();

        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            mailbox.runDue();
        }

        assertThat(jobManagers.registrations).hasSize(2);
        assertThat(FakeJobManager.last(jobManagers.registrations).request().getRegistrationId())
                .isNotEmpty().isNotEqualTo(first);
    }

    @Test
    void refusesRequestsOfAnotherSession() {
        register(FIRST);

        Answer answer = deploy(SECOND, 0, 0);
        mailbox.runDue();

        assertThat(answer.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(startedTaskThreads).isEmpty();
    }

    @Test
    void aRefusedRegistrationFailsTheStartWithTheJobManagersReason() {
        leaders.listener.accept(FIRST);
        mailbox.runDue();

        FakeJobManager.last(jobManagers.registrations).answer().completeExceptionally(Status.INVALID_ARGUMENT
                .withDescription("TaskManager tm-x advertises address 'nowhere:1', but ...").asRuntimeException());
        mailbox.runDue();

        assertThatThrownBy(() -> executor.start(OWN_ADDRESS, 1_000)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refused to register").hasMessageContaining("advertises address 'nowhere:1'");
    }

    // ------------------------------------------------------------------ streaming checkpoints

    private static io.duraflow.rpc.proto.CheckpointTriggers trigger(LeaderInfo session, AttemptId attempt) {
        return io.duraflow.rpc.proto.CheckpointTriggers.newBuilder().setJmSessionId(session.sessionId())
                .addTriggers(io.duraflow.rpc.proto.TriggerCheckpointRequest.newBuilder().setAttempt(attempt)
                        .setCheckpointId(1)).build();
    }

    @Test
    void checkpointRequestsOfItsSessionReachTheTaskAndTheTasksCheckpointCallsCarryTheSessionThatDeployedIt() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        FakeTask task = tasks.get("0#0");

        Answer otherSession = new Answer();
        executor.triggerCheckpoint(trigger(SECOND, attempt(0, 0)), otherSession);
        Answer triggered = new Answer();
        executor.triggerCheckpoint(trigger(FIRST, attempt(0, 0)), triggered);
        Answer notRunning = new Answer();
        executor.triggerCheckpoint(trigger(FIRST, attempt(1, 0)), notRunning);
        Answer notified = new Answer();
        executor.notifyCheckpoint(io.duraflow.rpc.proto.CheckpointNotifications.newBuilder()
                .setJmSessionId(FIRST.sessionId()).addNotifications(io.duraflow.rpc.proto.CheckpointNotification
                        .newBuilder().setAttempt(attempt(0, 0)).setCheckpointId(1).setCompleted(true))
                .build(), notified);
        mailbox.runDue();

        assertThat(otherSession.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(triggered.ok).isTrue();
        assertThat(notRunning.refused.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(notified.ok).isTrue();
        assertThat(task.triggers).singleElement().satisfies(t -> assertThat(t.getCheckpointId()).isEqualTo(1));
        assertThat(task.notifications).singleElement().satisfies(n -> assertThat(n.getCompleted()).isTrue());

        // Whatever session the task names, its calls go with the one that deployed it.
        java.util.concurrent.CompletableFuture<Void> acked = executor.streaming().acknowledgeCheckpoint(
                io.duraflow.rpc.proto.AcknowledgeCheckpointRequest.newBuilder().setJmSessionId("forged")
                        .setAttempt(attempt(0, 0)).setCheckpointId(1).build());
        java.util.concurrent.CompletableFuture<Void> ended = executor.streaming().reportInputEnded(
                io.duraflow.rpc.proto.TaskInputEnded.newBuilder().setAttempt(attempt(0, 0)).build());
        java.util.concurrent.CompletableFuture<Void> declinedByAGoneTask = executor.streaming().declineCheckpoint(
                io.duraflow.rpc.proto.DeclineCheckpointRequest.newBuilder().setAttempt(attempt(1, 0))
                        .setCheckpointId(1).build());
        mailbox.runDue();
        assertThat(FakeJobManager.last(jobManagers.acknowledgements).request().getJmSessionId())
                .isEqualTo(FIRST.sessionId());
        assertThat(FakeJobManager.last(jobManagers.inputEnds).request().getJmSessionId()).isEqualTo(FIRST.sessionId());
        assertThat(jobManagers.declines).isEmpty();
        assertThat(declinedByAGoneTask).isCompletedExceptionally();
        assertThat(acked).isNotDone();
        FakeJobManager.last(jobManagers.acknowledgements).answer().complete(io.duraflow.rpc.proto.Ack.getDefaultInstance());
        FakeJobManager.last(jobManagers.inputEnds).answer().complete(io.duraflow.rpc.proto.Ack.getDefaultInstance());
        assertThat(acked).isCompleted();
        assertThat(ended).isCompleted();
    }

    @Test
    void tasksOfAStreamingJobGetAPlanEachWhileTasksOfABatchJobShareOne() {
        // Streaming functions keep per-task fields (state handles set in open()): one shared
        // function object would let the second task's open() redirect the first task's state.
        planBuilder = (jobClass, params, parallelism, mode) -> JobPlans.build(jobClass, params, parallelism, mode);
        register(FIRST);
        for (int subtask = 0; subtask < 2; subtask++) {
            Answer answer = new Answer();
            executor.deploy(TaskDeployment.newBuilder().setJmSessionId(FIRST.sessionId())
                    .setAttempt(attempt(subtask, 0)).setJobClass(TinyJob.class.getName())
                    .putConfig("execution.runtime-mode", "streaming").setDefaultParallelism(1)
                    .setFingerprint(JobPlans.build(TinyJob.class.getName(), Map.of(), 1,
                            io.duraflow.config.RuntimeMode.STREAMING).fingerprint())
                    .setParallelism(2).build(), answer);
            mailbox.runDue();
            assertThat(answer.ok).isTrue();
        }
        assertThat(startedTaskThreads).hasSize(2);
        assertThat(taskGraphs.get("0#0").mode()).isEqualTo(io.duraflow.config.RuntimeMode.STREAMING);
        assertThat(taskGraphs.get("0#0")).isNotSameAs(taskGraphs.get("1#0"));
        assertThat(taskGraphs.get("0#0").fingerprint()).isEqualTo(taskGraphs.get("1#0").fingerprint());
    }

    // ------------------------------------------------------------------ slots

    @Test
    void deploysIntoFreeSlotsAndRefusesWhenAllAreBusy() {
        register(FIRST);

        Answer first = deploy(FIRST, 0, 0);
        Answer second = deploy(FIRST, 1, 0);
        Answer third = deploy(FIRST, 2, 0);
        mailbox.runDue();

        assertThat(first.ok).isTrue();
        assertThat(second.ok).isTrue();
        assertThat(third.refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(startedTaskThreads).hasSize(2);

        endTask(attempt(0, 0), TaskState.FINISHED);
        Answer again = deploy(FIRST, 2, 0);
        mailbox.runDue();

        assertThat(again.ok).as("the finished task's slot is free").isTrue();
        assertThat(startedTaskThreads).hasSize(3);
    }

    @Test
    void deploymentsThatNameTheSameSlotShareItUntilTheLastEnds() {
        register(FIRST);

        Answer a = deploy(FIRST, 0, 0, "job/default/0");
        Answer b = deploy(FIRST, 1, 0, "job/default/0");
        Answer c = deploy(FIRST, 2, 0, "job/default/1");
        Answer d = deploy(FIRST, 3, 0, "job/default/2");
        Answer e = deploy(FIRST, 4, 0, "job/default/1");
        mailbox.runDue();

        assertThat(List.of(a, b, c, e)).allMatch(answer -> answer.ok);
        assertThat(d.refused.getStatus().getCode()).as("a third name needs a third slot")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(startedTaskThreads).hasSize(4);

        endTask(attempt(0, 0), TaskState.FINISHED);
        Answer stillFull = deploy(FIRST, 3, 0, "job/default/2");
        mailbox.runDue();
        assertThat(stillFull.refused.getStatus().getCode()).as("job/default/0 still runs a task")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

        endTask(attempt(1, 0), TaskState.FINISHED);
        Answer again = deploy(FIRST, 3, 0, "job/default/2");
        mailbox.runDue();
        assertThat(again.ok).as("the last task of job/default/0 ended: its slot is free").isTrue();
    }

    @Test
    void aDeploymentOfAnAttemptThatAlreadyRanIsRefused() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        Answer twice = deploy(FIRST, 0, 0);
        mailbox.runDue();

        assertThat(twice.refused.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
    }

    // ------------------------------------------------------------------ cancel

    @Test
    void cancelStopsARunningTask() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        Answer answer = new Answer();
        executor.cancel(FIRST.sessionId(), attempt(0, 0), answer);
        mailbox.runDue();

        assertThat(answer.ok).isTrue();
        assertThat(tasks.get("0#0").cancelled).isTrue();
    }

    @Test
    void cancelEndsATaskWaitingForItsPlanWhichThenNeverStarts() {
        List<Runnable> queuedBuilds = new ArrayList<>();
        planBuilds = queuedBuilds::add;
        register(FIRST);
        Answer deployed = deploy(FIRST, 0, 0);
        mailbox.runDue();
        assertThat(deployed.ok).isTrue();

        executor.cancel(FIRST.sessionId(), attempt(0, 0), new Answer());
        mailbox.runDue();
        queuedBuilds.forEach(Runnable::run);
        mailbox.runDue();

        assertThat(reportsOf(TaskState.CANCELED)).hasSize(1);
        assertThat(startedTaskThreads).isEmpty();
    }

    // ------------------------------------------------------------------ leader change

    @Test
    void aNewLeaderCancelsTheTasksAndGetsARegistrationWhileTheOldSessionIsRefused() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        leaders.listener.accept(SECOND);
        mailbox.runDue();

        assertThat(tasks.get("0#0").cancelled).isTrue();
        assertThat(jobManagers.closed).containsExactly(FIRST.address());
        assertThat(jobManagers.registrations).as("not while the cancelled task holds its slot").hasSize(1);

        endTask(FIRST.sessionId(), attempt(0, 0), TaskState.CANCELED);

        assertThat(FakeJobManager.last(jobManagers.registrations).address()).isEqualTo(SECOND.address());
        answerRegistration(SECOND);
        Answer stale = deploy(FIRST, 1, 0);
        mailbox.runDue();

        assertThat(stale.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(heartbeat().getTasksList()).as("the old leader's report went with it").isEmpty();
    }

    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void aKeptTaskRunsOnIsReportedAtTheRegistrationAndOnceAdoptedReportsInTheNewSession() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        executor.deliver(io.duraflow.rpc.proto.OperatorEventToTask.newBuilder().setJmSessionId(FIRST.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(1).setEvent(io.duraflow.rpc.proto.OperatorEvent.newBuilder()
                        .setAddSplits(io.duraflow.rpc.proto.AddSplits.newBuilder()
                                .addSplits(com.google.protobuf.ByteString.copyFromUtf8("split-0")))).build(), new Answer());
        mailbox.runDue();

        leaders.listener.accept(SECOND);
        mailbox.runDue();

        assertThat(tasks.get("0#0").cancelled).as("kept for the next leader").isFalse();
        assertThat(FakeJobManager.last(jobManagers.registrations).request().getHeldTasksList())
                .as("registered at once, with the kept task").singleElement().satisfies(held -> {
                    assertThat(held.getAttempt()).isEqualTo(attempt(0, 0));
                    assertThat(held.getState()).isEqualTo(TaskState.RUNNING);
                    assertThat(held.getDeployedBySession()).isEqualTo(FIRST.sessionId());
                    assertThat(held.getSplitsList()).extracting(com.google.protobuf.ByteString::toStringUtf8)
                            .containsExactly("split-0");
                });
        answerRegistration(SECOND);

        Answer adopted = new Answer();
        executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), adopted);
        mailbox.runDue();
        assertThat(adopted.ok).isTrue();
        // The new leader numbers its events to the task from 1 again: they follow the old leader's.
        executor.deliver(io.duraflow.rpc.proto.OperatorEventToTask.newBuilder().setJmSessionId(SECOND.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(1).setEvent(io.duraflow.rpc.proto.OperatorEvent.newBuilder()
                        .setNoMoreSplits(io.duraflow.rpc.proto.NoMoreSplits.getDefaultInstance())).build(), new Answer());
        mailbox.runDue();
        assertThat(tasks.get("0#0").sequences).containsExactly(1L, 2L);
        endTask(FIRST.sessionId(), attempt(0, 0), TaskState.FINISHED);

        assertThat(reportsOf(TaskState.FINISHED)).singleElement()
                .satisfies(report -> assertThat(report.getJmSessionId()).isEqualTo(SECOND.sessionId()));
        mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(tasks.get("0#0").cancelled).as("no timeout for an adopted task").isFalse();
    }

    private void deliverEvent(LeaderInfo leader, long sequence, io.duraflow.rpc.proto.OperatorEvent.Builder event) {
        executor.deliver(io.duraflow.rpc.proto.OperatorEventToTask.newBuilder().setJmSessionId(leader.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(sequence).setEvent(event).build(), new Answer());
        mailbox.runDue();
    }

    /**
     * A new leader's enumerator may send to a kept task as soon as the leader decided to adopt
     * it, before the TaskManager handled the adoption: those events follow the old leader's too.
     * (They were numbered from 0 again, taken for duplicates and dropped, and the task then waited
     * forever for the numbers that went missing, with every later trigger.)
     */
    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void eventsOfTheNewLeaderThatComeBeforeItsAdoptionFollowTheOldLeaders() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        deliverEvent(FIRST, 1, io.duraflow.rpc.proto.OperatorEvent.newBuilder().setAddSplits(
                io.duraflow.rpc.proto.AddSplits.newBuilder().addSplits(com.google.protobuf.ByteString.copyFromUtf8("s"))));
        deliverEvent(FIRST, 2, io.duraflow.rpc.proto.OperatorEvent.newBuilder().setCustom(
                com.google.protobuf.ByteString.copyFromUtf8("old")));

        leaders.listener.accept(SECOND);
        mailbox.runDue();
        answerRegistration(SECOND);
        deliverEvent(SECOND, 1, io.duraflow.rpc.proto.OperatorEvent.newBuilder().setCustom(
                com.google.protobuf.ByteString.copyFromUtf8("new, before the adoption")));
        executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        mailbox.runDue();
        deliverEvent(SECOND, 2, io.duraflow.rpc.proto.OperatorEvent.newBuilder().setCustom(
                com.google.protobuf.ByteString.copyFromUtf8("new, after it")));

        assertThat(tasks.get("0#0").sequences).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void aKeptTaskThatEndsBeforeAnyLeaderDecidedIsReportedFinishedAndItsReportWaitsForTheAdoption() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        loseTheJobManagerByMissedHeartbeats();
        endTask(FIRST.sessionId(), attempt(0, 0), TaskState.FINISHED);

        leaders.listener.accept(SECOND);
        mailbox.runDue();
        var registration = FakeJobManager.last(jobManagers.registrations).request();
        assertThat(registration.getEarlierFinishedReportsList()).as("not an earlier finish: a kept task").isEmpty();
        assertThat(registration.getHeldTasksList()).singleElement().satisfies(held -> {
            assertThat(held.getState()).isEqualTo(TaskState.FINISHED);
            assertThat(held.getRecordsOut()).isEqualTo(42);
        });
        answerRegistration(SECOND);
        assertThat(reportsOf(TaskState.FINISHED)).as("waits for the leader's decision").isEmpty();

        executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        mailbox.runDue();

        assertThat(reportsOf(TaskState.FINISHED)).singleElement()
                .satisfies(report -> assertThat(report.getJmSessionId()).isEqualTo(SECOND.sessionId()));
    }

    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void keptTasksNoLeaderAdoptedAreCancelledAfterTheLeaderLossTimeoutAndOnesItCancelsReportNothing() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        deploy(FIRST, 1, 0);
        mailbox.runDue();
        loseTheJobManagerByMissedHeartbeats();
        leaders.listener.accept(SECOND);
        mailbox.runDue();
        answerRegistration(SECOND);

        executor.cancel(SECOND.sessionId(), attempt(1, 0), new Answer());
        mailbox.runDue();
        assertThat(tasks.get("1#0").cancelled).as("the new leader runs it again elsewhere").isTrue();
        endTask(FIRST.sessionId(), attempt(1, 0), TaskState.CANCELED);
        assertThat(reportsOf(TaskState.CANCELED)).isEmpty();

        mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(tasks.get("0#0").cancelled).as("not adopted within the timeout").isTrue();
    }

    @Test
    void aNewLeadershipOfTheSameJobManagerIsFollowedBeforeItsAnnouncementArrives() {
        // Regression: ZooKeeper was down, the JobManager lost leadership and won it again in a new
        // session; this TaskManager registered again (the JobManager no longer knew it) before
        // the new announcement reached it. It used to refuse the answer and then every
        // deployment of the new session with PERMISSION_DENIED.
        int registrations = registeredThenForgotten();
        LeaderInfo again = new LeaderInfo(FIRST.address(), "s1-again");

        answerRegistration(again);
        Answer deployment = deploy(again, 0, 0);
        mailbox.runDue();

        assertThat(deployment.ok).as("the new session's deployment is taken").isTrue();
        assertThat(heartbeat().getJmSessionId()).isEqualTo(again.sessionId());
        leaders.listener.accept(again);
        mailbox.runDue();
        assertThat(jobManagers.registrations).as("the late announcement changes nothing")
                .hasSize(registrations + 1);
        assertThat(tasks.get("0#0").cancelled).isFalse();
    }

    @Test
    void theAnnouncementOfANewLeadershipArrivingWhileItsRegistrationIsInFlightDoesNotRegisterTwice() {
        // Seen in ZooKeeperOutageIT: the TaskManager registered again with the JobManager that
        // led again; the new session's announcement came before the answer and started a second
        // registration, so the JobManager dropped the first one as a lost TaskManager (a restart,
        // and finished sources run again).
        int registrations = registeredThenForgotten();
        LeaderInfo again = new LeaderInfo(FIRST.address(), "s1-again");

        leaders.listener.accept(again);
        mailbox.runDue();
        assertThat(jobManagers.registrations).as("the registration in flight goes to that JobManager")
                .hasSize(registrations + 1);

        answerRegistration(again);
        Answer deployment = deploy(again, 0, 0);
        mailbox.runDue();
        assertThat(deployment.ok).isTrue();
        assertThat(heartbeat().getJmSessionId()).isEqualTo(again.sessionId());
    }

    @Test
    void missedHeartbeatsLoseTheJobManagerAndRegisterAgain() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        int registrations = jobManagers.registrations.size();

        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            mailbox.runDue();
        }

        assertThat(tasks.get("0#0").cancelled).isTrue();
        assertThat(jobManagers.registrations).as("not while the cancelled task holds its slot")
                .hasSize(registrations);

        endTask(attempt(0, 0), TaskState.CANCELED);

        assertThat(jobManagers.registrations).hasSize(registrations + 1);
    }

    @Test
    void aCancelledTaskThatDoesNotLeaveItsSlotDelaysTheRegistrationOnlyForAHeartbeatTimeout() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        leaders.listener.accept(SECOND);
        mailbox.runDue();
        assertThat(jobManagers.registrations).hasSize(1);

        mailbox.advance(HEARTBEAT_TIMEOUT_MS);

        assertThat(FakeJobManager.last(jobManagers.registrations).address()).isEqualTo(SECOND.address());
    }

    // ------------------------------------------------------------------ final reports

    @Test
    void aFinalReportWhoseCallFailedGoesWithEveryHeartbeatUntilAcknowledged() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        endTask(attempt(0, 0), TaskState.FINISHED);
        FakeJobManager.last(jobManagers.reports).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        mailbox.runDue();

        var first = heartbeat();
        assertThat(first.getTasksList()).singleElement().satisfies(task -> {
            assertThat(task.getState()).isEqualTo(TaskState.FINISHED);
            assertThat(task.getFinalReport().getAttempt()).isEqualTo(attempt(0, 0));
            assertThat(task.getFinalReport().getRecordsOut()).isEqualTo(42);
        });
        answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true).build());
        assertThat(heartbeat().getTasksList()).as("not acknowledged: carried again").hasSize(1);

        answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true).addAcknowledgedReports(attempt(0, 0))
                .build());

        assertThat(heartbeat().getTasksList()).isEmpty();
    }

    @Test
    void anUnacknowledgedFinishOfAnEarlierLeaderGoesWithTheRegistrationAtTheNextOne() {
        // Regression: the leader went before a sink's FINISHED report reached it; the report used to
        // be dropped at the registration with the next leader, and the sink ran again.
        register(FIRST);
        deploy(FIRST, 0, 0);
        deploy(FIRST, 1, 0);
        mailbox.runDue();
        endTask(attempt(0, 0), TaskState.FINISHED);
        endTask(attempt(1, 0), TaskState.FAILED);
        jobManagers.reports.forEach(call -> call.answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()));
        mailbox.runDue();

        leaders.listener.accept(SECOND);
        mailbox.runDue();

        assertThat(FakeJobManager.last(jobManagers.registrations).request().getEarlierFinishedReportsList())
                .as("only the finish goes along").singleElement().satisfies(report -> {
                    assertThat(report.getAttempt()).isEqualTo(attempt(0, 0));
                    assertThat(report.getJmSessionId()).isEqualTo(FIRST.sessionId());
                    assertThat(report.getRecordsOut()).isEqualTo(42);
                });
        answerRegistration(SECOND);
        assertThat(heartbeat().getTasksList()).as("the registration's answer acknowledged it").isEmpty();
    }

    @Test
    void aFinalReportWhoseCallSucceededIsForgotten() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        deploy(FIRST, 1, 0);
        mailbox.runDue();

        endTask(attempt(0, 0), TaskState.FINISHED);
        var whileSending = heartbeat();
        assertThat(whileSending.getTasksList()).filteredOn(task -> task.getAttempt().equals(attempt(0, 0)))
                .singleElement().as("the report is on its way: the heartbeat names it but does not carry it")
                .satisfies(task -> {
                    assertThat(task.getState()).isEqualTo(TaskState.FINISHED);
                    assertThat(task.hasFinalReport()).isFalse();
                });
        answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true).build());
        FakeJobManager.last(jobManagers.reports).answer().complete(Ack.getDefaultInstance());
        mailbox.runDue();

        assertThat(heartbeat().getTasksList()).extracting(TaskAttemptState::getAttempt)
                .as("only the running task").containsExactly(attempt(1, 0));
    }

    // ------------------------------------------------------------------ plans

    @Test
    void aJobWhoseBuildBlocksFailsTheDeploymentNamingTheJobClassAndItsBuildIsInterrupted() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pools.add(pool);
        planBuilds = pool;
        planBuilder = JobPlans::build;
        register(FIRST);
        Answer deployed = new Answer();
        executor.deploy(TaskDeployment.newBuilder().setJmSessionId(FIRST.sessionId()).setAttempt(attempt(0, 0))
                .setJobClass(BlockingBuildJob.class.getName()).setDefaultParallelism(1).setFingerprint("f")
                .setParallelism(1).build(), deployed);
        mailbox.runDue();
        assertThat(deployed.ok).isTrue();
        assertThat(BlockingBuildJob.BUILDING.await(10, TimeUnit.SECONDS)).isTrue();

        mailbox.advance(TaskManagerOptions.PLAN_BUILD_TIMEOUT.defaultValue().toMillis() - 1);
        assertThat(reportsOf(TaskState.FAILED)).as("not before the timeout").isEmpty();
        mailbox.advance(1);

        assertThat(reportsOf(TaskState.FAILED)).singleElement().satisfies(report -> assertThat(report.getFailure())
                .isEqualTo("building the plan of job class " + BlockingBuildJob.class.getName()
                        + " did not finish within 60000 ms (taskmanager.plan-build.timeout);"
                        + " make sure its build() does not block"));
        assertThat(BlockingBuildJob.INTERRUPTED.await(10, TimeUnit.SECONDS)).as("the build was interrupted")
                .isTrue();
        assertThat(startedTaskThreads).isEmpty();
        assertThat(deploy(FIRST, 1, 0)).as("the slot is free again").satisfies(answer -> {
            mailbox.runDue();
            assertThat(answer.ok).isTrue();
        });
    }

    @Test
    void aPlanBuildThatThrowsFailsTheDeploymentAndTheNextDeploymentBuildsAgain() {
        int[] builds = {0};
        planBuilder = (jobClass, params, parallelism, mode) -> {
            if (builds[0]++ == 0) {
                throw new IllegalArgumentException("no such parameter 'x'");
            }
            return GRAPH;
        };
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        assertThat(reportsOf(TaskState.FAILED)).singleElement().satisfies(report -> assertThat(report.getFailure())
                .isEqualTo("building the plan of job class " + TinyJob.class.getName()
                        + " failed: IllegalArgumentException: no such parameter 'x'"));

        deploy(FIRST, 0, 1);
        mailbox.runDue();

        assertThat(builds[0]).isEqualTo(2);
        assertThat(startedTaskThreads).hasSize(1);
    }

    // ------------------------------------------------------------------ operator events and threads

    @Test
    void operatorEventsCarryTheSessionThatDeployedTheTask() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        executor.sendOperatorEvent(splitRequest().toBuilder().setJmSessionId("forged").build());
        mailbox.runDue();

        assertThat(FakeJobManager.last(jobManagers.operatorEvents).request().getJmSessionId())
                .isEqualTo(FIRST.sessionId());
    }

    @Test
    void aTaskSendingOperatorEventsDoesNotWaitAndTheyGoOutOneAtATimeInTheOrderSent() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();

        // The test's thread plays the task's: it returns at once, before anything was sent.
        executor.sendOperatorEvent(customEvent("first"));
        executor.sendOperatorEvent(customEvent("second"));
        assertThat(jobManagers.operatorEvents).isEmpty();
        mailbox.runDue();
        assertThat(sentEvents()).as("the second waits until the first was taken").containsExactly("first");

        FakeJobManager.last(jobManagers.operatorEvents).answer().complete(Ack.getDefaultInstance());
        mailbox.runDue();
        assertThat(sentEvents()).containsExactly("first", "second");
    }

    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void anOperatorEventALeaderChangeHoldsUpIsSentAgainOnTheMailboxsTimersUntilTheAdoptingLeaderTakesIt() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        executor.sendOperatorEvent(splitRequest());
        mailbox.runDue();
        assertThat(jobManagers.operatorEvents).hasSize(1);

        // A try that gets no answer counts as failed once the answer timeout passed; its late answer changes nothing.
        FakeJobManager.Call<OperatorEventFromTask, Ack> unanswered = FakeJobManager.last(jobManagers.operatorEvents);
        mailbox.advance(OperatorEventSender.ANSWER_TIMEOUT_MS);
        assertThat(jobManagers.operatorEvents).hasSize(1);
        mailbox.advance(OperatorEventSender.FIRST_BACKOFF_MS);
        assertThat(jobManagers.operatorEvents).hasSize(2);
        unanswered.answer().completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
        mailbox.runDue();

        // The leader is killed: its call fails, the TaskManager keeps the task and registers at the next.
        FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        mailbox.runDue();
        leaders.listener.accept(SECOND);
        mailbox.runDue();
        mailbox.advance(2 * OperatorEventSender.FIRST_BACKOFF_MS - 1);
        assertThat(jobManagers.operatorEvents).as("waits out the doubled backoff").hasSize(2);
        mailbox.advance(1);
        assertThat(FakeJobManager.last(jobManagers.operatorEvents)).satisfies(call -> {
            assertThat(call.address()).isEqualTo(SECOND.address());
            assertThat(call.request().getJmSessionId()).as("the task's own session").isEqualTo(FIRST.sessionId());
        });
        // The new leader refuses the old session until it adopted the task.
        FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                Status.PERMISSION_DENIED.asRuntimeException());
        mailbox.runDue();
        answerRegistration(SECOND);
        executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        mailbox.runDue();
        assertThat(jobManagers.operatorEvents).as("nothing unanswered to ask again").hasSize(3);

        mailbox.advance(4 * OperatorEventSender.FIRST_BACKOFF_MS);
        assertThat(FakeJobManager.last(jobManagers.operatorEvents).request().getJmSessionId())
                .isEqualTo(SECOND.sessionId());
        FakeJobManager.last(jobManagers.operatorEvents).answer().complete(Ack.getDefaultInstance());
        mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(jobManagers.operatorEvents).as("taken: not sent again").hasSize(4);
        assertThat(tasks.get("0#0").cancelled).isFalse();
    }

    @Test
    @org.junit.jupiter.api.Tag(KEEPS_TASKS)
    void anOperatorEventNotTakenWithinTheLeaderLossTimeoutFailsTheTaskAndItsLaterEventsAreDropped() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        executor.sendOperatorEvent(splitRequest());
        mailbox.runDue();

        long backoffMs = OperatorEventSender.FIRST_BACKOFF_MS;
        long waitedMs = 0;
        while (waitedMs < LEADER_LOSS_TIMEOUT_MS) {
            FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                    Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
            mailbox.runDue();
            assertThat(tasks.get("0#0").cancelled).isFalse();
            int tries = jobManagers.operatorEvents.size();
            mailbox.advance(backoffMs);
            assertThat(jobManagers.operatorEvents).hasSize(tries + 1);
            waitedMs += backoffMs;
            backoffMs = Math.min(OperatorEventSender.MAX_BACKOFF_MS, 2 * backoffMs);
        }
        int tries = jobManagers.operatorEvents.size();
        FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        mailbox.runDue();

        assertThat(tasks.get("0#0").cancelled).as("stopped, to fail").isTrue();
        executor.sendOperatorEvent(customEvent("after the failure"));
        mailbox.advance(OperatorEventSender.MAX_BACKOFF_MS);
        assertThat(jobManagers.operatorEvents).hasSize(tries);
        endTask(attempt(0, 0), TaskState.CANCELED);
        assertThat(reportsOf(TaskState.CANCELED)).isEmpty();
        assertThat(reportsOf(TaskState.FAILED)).singleElement().satisfies(report -> {
            assertThat(report.getFailure()).isEqualTo(
                    "IllegalStateException: cannot send an operator event to the JobManager: io exception");
            assertThat(report.getRecordsOut()).isEqualTo(42);
        });
    }

    @Test
    void anOperatorEventTheJobManagerRefusesFailsTheTaskAtOnce() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        executor.sendOperatorEvent(splitRequest());
        mailbox.runDue();

        FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                Status.FAILED_PRECONDITION.withDescription("no coordinator for node 1").asRuntimeException());
        mailbox.runDue();

        assertThat(tasks.get("0#0").cancelled).isTrue();
        endTask(attempt(0, 0), TaskState.CANCELED);
        assertThat(reportsOf(TaskState.FAILED)).singleElement().satisfies(report -> assertThat(report.getFailure())
                .isEqualTo("IllegalStateException: cannot send an operator event to the JobManager:"
                        + " no coordinator for node 1"));
    }

    @Test
    void aTaskCancelledWhileItsOperatorEventIsOnItsWayEndsCancelledWhenTheEventFails() {
        register(FIRST);
        deploy(FIRST, 0, 0);
        mailbox.runDue();
        executor.sendOperatorEvent(splitRequest());
        mailbox.runDue();

        executor.cancel(FIRST.sessionId(), attempt(0, 0), new Answer());
        mailbox.runDue();
        FakeJobManager.last(jobManagers.operatorEvents).answer().completeExceptionally(
                Status.FAILED_PRECONDITION.asRuntimeException());
        mailbox.runDue();
        endTask(attempt(0, 0), TaskState.CANCELED);

        assertThat(reportsOf(TaskState.CANCELED)).hasSize(1);
        assertThat(reportsOf(TaskState.FAILED)).isEmpty();
    }

    @Test
    void stateChangingMethodsRefuseToRunOutsideTheMailbox() {
        assertThatThrownBy(() -> executor.connection.followLeader(FIRST)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailbox");
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Registers with FIRST, whose JobManager then answers a heartbeat with "not registered" (it
     * lost and won leadership again): the executor registers again. Returns the number of
     * registrations before that one.
     */
    private int registeredThenForgotten() {
        register(FIRST);
        int registrations = jobManagers.registrations.size();
        heartbeat();
        answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(false).build());
        assertThat(jobManagers.registrations).hasSize(registrations + 1);
        return registrations;
    }

    private void loseTheJobManagerByMissedHeartbeats() {
        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            mailbox.runDue();
        }
    }

    private void register(LeaderInfo leader) {
        leaders.listener.accept(leader);
        mailbox.runDue();
        answerRegistration(leader);
    }

    private void answerRegistration(LeaderInfo leader) {
        FakeJobManager.last(jobManagers.registrations).answer().complete(RegisterTaskManagerResponse.newBuilder()
                .setJmSessionId(leader.sessionId()).build());
        mailbox.runDue();
    }

    /** The next heartbeat the executor sends (the clock moves one interval). */
    private io.duraflow.rpc.proto.TaskManagerHeartbeat heartbeat() {
        int before = jobManagers.heartbeats.size();
        mailbox.advance(HEARTBEAT_MS);
        assertThat(jobManagers.heartbeats).hasSize(before + 1);
        return FakeJobManager.last(jobManagers.heartbeats).request();
    }

    private void answerHeartbeat(JobManagerHeartbeat answer) {
        FakeJobManager.last(jobManagers.heartbeats).answer().complete(answer);
        mailbox.runDue();
    }

    private Answer deploy(LeaderInfo leader, int subtask, int attemptNumber) {
        return deploy(leader, subtask, attemptNumber, "");
    }

    private Answer deploy(LeaderInfo leader, int subtask, int attemptNumber, String slot) {
        Answer answer = new Answer();
        executor.deploy(TaskDeployment.newBuilder().setJmSessionId(leader.sessionId())
                .setAttempt(attempt(subtask, attemptNumber)).setJobClass(TinyJob.class.getName())
                .setDefaultParallelism(1).setFingerprint(GRAPH.fingerprint()).setParallelism(1).setSlot(slot).build(),
                answer);
        return answer;
    }

    /** What a task thread does when its task ends: free the slot, then report. */
    private void endTask(AttemptId attempt, TaskState state) {
        endTask(FakeJobManager.last(jobManagers.registrations).answer().join().getJmSessionId(), attempt, state);
    }

    private void endTask(String session, AttemptId attempt, TaskState state) {
        executor.releaseSlot(attempt);
        executor.reportState(TaskStateUpdate.newBuilder().setJmSessionId(session).setTmId(executor.taskManagerId())
                .setAttempt(attempt).setState(state).setRecordsOut(42).build());
        mailbox.runDue();
    }

    private List<TaskStateUpdate> reportsOf(TaskState state) {
        return jobManagers.reports.stream().map(FakeJobManager.Call::request).filter(r -> r.getState() == state)
                .toList();
    }

    private static OperatorEventFromTask splitRequest() {
        return OperatorEventFromTask.newBuilder().setAttempt(attempt(0, 0)).setNodeId(1)
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build();
    }

    private static OperatorEventFromTask customEvent(String payload) {
        return OperatorEventFromTask.newBuilder().setAttempt(attempt(0, 0)).setNodeId(1).setEvent(OperatorEvent
                .newBuilder().setCustom(com.google.protobuf.ByteString.copyFromUtf8(payload))).build();
    }

    /** The payloads of the custom operator events sent to JobManagers, in the order sent. */
    private List<String> sentEvents() {
        return jobManagers.operatorEvents.stream().map(call -> call.request().getEvent().getCustom().toStringUtf8())
                .toList();
    }

    private static AttemptId attempt(int subtask, int attemptNumber) {
        return AttemptId.newBuilder().setJobId(JOB).setVertex(0).setSubtask(subtask).setAttempt(attemptNumber).build();
    }
}

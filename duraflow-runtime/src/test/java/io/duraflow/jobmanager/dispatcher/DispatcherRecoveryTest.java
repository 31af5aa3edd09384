package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.examples.WordCount;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch job recovery through the dispatcher: a first leader runs word count with recovery on
 * until its sources finished and the count runs, then dies; a second leader recovers the stored
 * job from the job event log on disk and the partitions its TaskManagers report. The main thread
 * and clock are manual, store I/O runs inline, and the TaskManagers are played by the test
 * through {@link RecordingGateways}. Only the job event writer has a thread of its own; the test
 * waits for what it wrote.
 */
class DispatcherRecoveryTest {
    private static final String JOB_ID = "job-1";
    private static final Map<String, String> PARAMS = Map.of("words", "100", "splits", "4");
    private static final int PARALLELISM = 2;
    private static final int SOURCE = 0;
    private static final int COUNT = 1;
    private static final Configuration CONFIG = Configuration.fromMap(Map.of(
            JobRecoveryOptions.ENABLED.key(), "on",
            // Each event is written as soon as it is appended: what is on disk is all that was recorded, once
            // the writer caught up, whatever the timing.
            JobRecoveryOptions.WRITE_BUFFER_SIZE.key(), "1 b",
            JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL.key(), "1 h"));

    @TempDir
    Path tempDir;

    private final ManualMailbox main = new ManualMailbox();
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();
    private final InMemoryJobGraphStore jobGraphs = new InMemoryJobGraphStore();
    private final JobGraph graph = JobPlans.build(WordCount.class.getName(), PARAMS, PARALLELISM);
    private final List<Leader> leaders = new ArrayList<>();
    /** The count tasks the first leader deployed, running when it died. */
    private List<Deployment> firstCountDeployments = List.of();
    private volatile String leadingSession;

    /** One leadership session: its dispatcher and resource manager, and the calls to its TaskManagers. */
    private record Leader(String session, Dispatcher dispatcher, ResourceManager resourceManager,
            RecordingGateways taskManagers) {
        List<Deployment> deployments(int vertex) {
            return taskManagers.deployments().stream().filter(d -> d.vertex() == vertex).toList();
        }
    }

    private Leader leader(String session) {
        return leader(session, Runnable::run);
    }

    /** A leader whose store I/O runs on {@code io}. */
    private Leader leader(String session, Executor io) {
        RecordingGateways taskManagers = new RecordingGateways(main);
        ResourceManager resourceManager = new ResourceManager(main, main::now, 60_000, taskManagers);
        Dispatcher.Services services = new Dispatcher.Services(results, jobGraphs,
                JobDirectories.local(tempDir.resolve("jobs")), CleanupRetryPolicy.none(), io, Runnable::run, () -> { },
                s -> s.equals(leadingSession));
        Leader leader = new Leader(session, new Dispatcher(CONFIG, session, resourceManager, main, main::now,
                services), resourceManager, taskManagers);
        leadingSession = session;
        leaders.add(leader);
        return leader;
    }

    @AfterEach
    void closeLeaders() {
        // A leader that still runs a job stops its event writer; the test's temp dir is deleted after this.
        leaders.forEach(l -> l.dispatcher().close());
    }

    /** The leader after phase one of its take-over (recover), with store I/O inline. */
    private Leader recovered(Leader leader) {
        CompletableFuture<Void> recovered = leader.dispatcher().recover();
        main.runDue();
        assertThat(recovered).isCompleted();
        return leader;
    }

    private Path eventLogDirectory() {
        return tempDir.resolve("jobs").resolve(JOB_ID).resolve(Dispatcher.JOB_EVENTS_DIRECTORY);
    }

    private List<Path> eventLogFiles() throws IOException {
        if (!Files.isDirectory(eventLogDirectory())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(eventLogDirectory())) {
            return files.sorted().toList();
        }
    }

    // ------------------------------------------------------------------ playing the TaskManagers

    private void register(Leader leader, List<String> heldPartitions) {
        for (String tmId : List.of("tm-1", "tm-2")) {
            List<HeldPartition> held = heldPartitions.stream().filter(p -> p.endsWith("@" + tmId))
                    .map(p -> HeldPartition.newBuilder().setJobId(JOB_ID)
                            .setPartitionId(p.substring(0, p.indexOf('@'))).build())
                    .toList();
            leader.resourceManager().register(tmId, tmId + ".test:6122", 2, held);
        }
        main.runDue();
    }

    /**
     * A TaskManager registers as over gRPC: through the dispatcher, with the partitions it kept
     * ("partition id@TaskManager id", only its own are taken) and the finishes it carried.
     */
    private CompletableFuture<Void> registerWithReports(Leader leader, String tmId, List<String> heldPartitions,
            List<TaskStateUpdate> reports) {
        RegisterTaskManagerRequest.Builder request = RegisterTaskManagerRequest.newBuilder().setTmId(tmId)
                .setAddress(tmId + ".test:6122").setSlots(2).addAllEarlierFinishedReports(reports);
        heldPartitions.stream().filter(p -> p.endsWith("@" + tmId)).forEach(p -> request.addHeldPartitions(
                HeldPartition.newBuilder().setJobId(JOB_ID).setPartitionId(p.substring(0, p.indexOf('@')))));
        CompletableFuture<Void> registered = leader.dispatcher().registerTaskManager(request.build());
        // The answer waits for the job event writer's thread.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    main.runDue();
                    return registered.isDone();
                });
        return registered;
    }

    /** What a count task's TaskManager kept of its FINISHED report when the first leader died before it arrived. */
    private static TaskStateUpdate lostFinish(Deployment d) {
        return TaskStateUpdate.newBuilder().setJmSessionId(d.task().getJmSessionId()).setTmId(d.tmId())
                .setAttempt(d.attempt()).setState(TaskState.FINISHED).setRecordsIn(5).setRecordsOut(2)
                .addCollected(CollectedResult.newBuilder().setName("lost-finish").setSubtask(d.subtask())
                        .setRecords(2).setData(ByteString.copyFrom(new byte[] {1, 42, 1, 43})))
                .build();
    }

    private void send(Leader leader, Deployment d, TaskStateUpdate.Builder update) {
        leader.dispatcher().onTaskStateUpdate(update.setJmSessionId(d.task().getJmSessionId()).setTmId(d.tmId())
                .setAttempt(d.attempt()).build());
        main.runDue();
    }

    private void running(Leader leader, Deployment d) {
        send(leader, d, TaskStateUpdate.newBuilder().setState(TaskState.RUNNING));
    }

    /** Reports the task finished, with 10 bytes in each subpartition of each output. */
    private void finish(Leader leader, Deployment d) {
        TaskStateUpdate.Builder update = TaskStateUpdate.newBuilder().setState(TaskState.FINISHED).setRecordsIn(1)
                .setRecordsOut(1);
        for (OutputSpec output : d.task().getOutputsList()) {
            SubpartitionSizes.Builder sizes = SubpartitionSizes.newBuilder().setEdgeId(output.getEdgeId())
                    .setPartitionId(output.getPartitionId()).setRecords(1);
            for (int i = 0; i < output.getSubpartitions(); i++) {
                sizes.addBytes(10);
            }
            update.addOutputs(sizes);
        }
        send(leader, d, update);
    }

    /** A source task asks for a split; false when told there are no more. */
    private boolean requestSplit(Leader leader, Deployment d) {
        int answered = leader.taskManagers().eventsTo(d.attempt()).size();
        leader.dispatcher().onOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(d.attempt())
                .setNodeId(graph.vertex(d.vertex()).head().id())
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
        List<RecordingGateways.Event> events = leader.taskManagers().eventsTo(d.attempt());
        assertThat(events).hasSize(answered + 1);
        return events.get(answered).event().hasAddSplits();
    }

    /** The source tasks run, ask for splits in turn until there are none, and finish. */
    private void runSources(Leader leader, List<Deployment> sources) {
        sources.forEach(d -> running(leader, d));
        List<Deployment> asking = new ArrayList<>(sources);
        while (!asking.isEmpty()) {
            asking.removeIf(d -> !requestSplit(leader, d));
        }
        sources.forEach(d -> finish(leader, d));
    }

    // ------------------------------------------------------------------ waiting for the other threads

    private List<JobEvent> eventsOnDisk() throws IOException {
        return JobEventReader.readAll(eventLogDirectory()).events();
    }

    /**
     * The old log is gone and the new one starts with RunStarted (written by the job's writer
     * thread, so it is awaited) and holds nothing of the old run.
     */
    private void assertNewRunLogged(String why) {
        awaitLogged(events -> !events.isEmpty() && events.get(0).hasRunStarted());
        try {
            assertThat(eventsOnDisk()).as(why).noneMatch(JobEvent::hasExecutionFinished);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Waits until the job event log on disk satisfies the condition. */
    private void awaitLogged(Predicate<List<JobEvent>> condition) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> condition.test(eventsOnDisk()));
    }

    /** Runs the main thread until the job's result is stored and cleaned up. */
    private void awaitCleanResult() {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    main.runDue();
                    return results.hasCleanJobResultEntry(JOB_ID);
                });
    }

    private JobStatus status(Leader leader) {
        CompletableFuture<JobStatus> status = leader.dispatcher().status(JOB_ID);
        main.runDue();
        return status.join();
    }

    private static String describe(Deployment d) {
        return "v" + d.vertex() + "/" + d.subtask() + "#" + d.attemptNumber();
    }

    private static List<String> describe(List<Deployment> deployments) {
        return deployments.stream().map(DispatcherRecoveryTest::describe).toList();
    }

    // ------------------------------------------------------------------ the first leader

    /**
     * The first leader runs the job until its sources finished and the count runs, then dies.
     *
     * @return the sources' finished output, as "partition id@TaskManager id"
     */
    private List<String> firstLeaderDiesWhileTheCountRuns() {
        Leader first = leader("session-1");
        register(first, List.of());
        CompletableFuture<?> submitted = first.dispatcher().submit(SubmitJobRequest.newBuilder().setJobId(JOB_ID)
                .setJobClass(WordCount.class.getName()).putAllParams(PARAMS).setParallelism(PARALLELISM).build());
        main.runDue();
        assertThat(submitted).isCompleted();
        List<Deployment> sources = first.deployments(SOURCE);
        assertThat(describe(sources)).containsExactly("v0/0#0", "v0/1#0");
        runSources(first, sources);
        assertThat(first.deployments(COUNT)).isNotEmpty();
        first.deployments(COUNT).forEach(d -> running(first, d));
        firstCountDeployments = first.deployments(COUNT);
        // VertexInitialized of the count is the last event the first leader recorded.
        awaitLogged(events -> events.stream().anyMatch(e -> e.hasVertexInitialized()
                && e.getVertexInitialized().getVertex() == COUNT));

        first.dispatcher().close();
        leadingSession = null;
        return sources.stream().map(d -> d.task().getOutputs(0).getPartitionId() + "@" + d.tmId()).toList();
    }

    // ------------------------------------------------------------------ scenarios

    @Test
    void theStatusOfARunningJobTellsWhetherItsEventsAreRecorded() throws IOException {
        firstLeaderDiesWhileTheCountRuns();
        Files.delete(eventLogFiles().get(0));
        Files.delete(eventLogDirectory());
        // The log's directory cannot be created: recording stops, the job goes on.
        Files.writeString(eventLogDirectory(), "in the way");
        Leader second = recovered(leader("session-2"));
        register(second, List.of());
        second.dispatcher().startRecoveredJobs();
        main.runDue();
        runSources(second, second.deployments(SOURCE));

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> !status(second).getEventLog().getStoppedCause().isEmpty());
        JobStatus status = status(second);
        assertThat(status.getState()).isEqualTo(JobState.JOB_RUNNING);
        assertThat(status.getEventLog().getWrittenEvents()).isZero();
        assertThat(status.getEventLog().getStoppedCause()).contains(eventLogDirectory().toString());
        assertThat(status.getEventLog().getDroppedEvents()).isPositive();
    }

    @Test
    void theNextLeaderKeepsTheFinishedSourcesAndRunsOnlyTheCountAgain() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        int countTasks = eventsOnDisk().stream().filter(e -> e.hasVertexInitialized()
                && e.getVertexInitialized().getVertex() == COUNT).findFirst().orElseThrow()
                .getVertexInitialized().getParallelism();

        Leader second = leader("session-2");
        // Elected a while before its main thread began the take-over.
        main.advance(1_000);
        long electedAtMs = main.now() - 250;
        CompletableFuture<Void> recovered = second.dispatcher().recover(electedAtMs);
        main.runDue();
        assertThat(recovered).isCompleted();
        register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        main.runDue();

        assertThat(status(second).getLeaderElectedAtMs()).isEqualTo(electedAtMs);
        assertThat(status(second).getTakenOverAtMs() - status(second).getLeaderElectedAtMs())
                .as("the status shows how long the job went without a leader after the crash was detected")
                .isGreaterThanOrEqualTo(250);
        assertThat(second.deployments(SOURCE)).isEmpty();
        assertThat(second.deployments(COUNT)).hasSize(countTasks).allSatisfy(d -> {
            assertThat(d.attemptNumber()).isEqualTo(1);
            assertThat(d.task().getInputs(0).getProducersList()).extracting(p -> p.getPartitionId() + "@" + p.getTmId())
                    .containsExactlyElementsOf(sourceOutputs);
        });
        assertThat(second.taskManagers().releases()).as("kept partitions are not released").isEmpty();
        assertThat(status(second).getRestoredTasks()).isEqualTo(2);

        second.deployments(COUNT).forEach(d -> finish(second, d));
        awaitCleanResult();
        assertThat(results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aCorruptEventLogRestartsTheJobFromScratchAndDeletesTheDamagedLog() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        assertThat(eventLogFiles()).extracting(p -> p.getFileName().toString()).containsExactly("events.0");
        flipPayloadByte(eventLogFiles().get(0), 2);

        Leader second = recovered(leader("session-2"));
        assertNewRunLogged("the damaged log is deleted");
        register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        main.runDue();

        assertThat(second.taskManagers().releases()).as("nobody recovers the job: its old partitions go")
                .containsExactlyInAnyOrder(new Release("tm-1", JOB_ID, List.of(), true),
                        new Release("tm-2", JOB_ID, List.of(), true));
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).isEmpty();
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
        assertThat(status(second).getRestoredTasks()).isZero();

        runSources(second, second.deployments(SOURCE));
        awaitLogged(events -> events.stream().filter(JobEvent::hasExecutionFinished).count() == 2);
        assertThat(eventsOnDisk()).as("a new log, from the start").filteredOn(JobEvent::hasExecutionFinished)
                .extracting(e -> e.getExecutionFinished().getAttempt()).containsOnly(0);
        second.deployments(COUNT).forEach(d -> finish(second, d));
        awaitCleanResult();
        assertThat(results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aJobRestartedFromScratchStartsOnlyOnceItsOldLogIsDeleted() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        flipPayloadByte(eventLogFiles().get(0), 2);
        ManualMailbox io = new ManualMailbox();
        Leader second = leader("session-2", io);
        CompletableFuture<Void> recovered = second.dispatcher().recover();
        io.runDue();
        main.runDue();
        assertThat(recovered).isCompleted();
        register(second, sourceOutputs);

        // Its writer would create events.1 next to the damaged events.0, to be deleted with it or to be
        // left alone after a gap.
        assertThat(eventLogFiles()).hasSize(1);
        assertThat(second.taskManagers().deployments()).as("started before the old log is gone").isEmpty();
        io.runDue();
        main.runDue();
        assertNewRunLogged("the old log is deleted before the job starts");
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
    }

    @Test
    void aLogThatDoesNotFitTheJobRestartsItFromScratchAndReleasesItsPartitions() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        // A later session recorded a finish of a vertex the job does not have.
        try (JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(eventLogDirectory()), 1024, Duration.ofHours(1))) {
            writer.append(JobEvent.newBuilder().setTimestampMs(1).setExecutionFinished(ExecutionFinished.newBuilder()
                    .setVertex(7).setSubtask(0).setAttempt(0).setTmId("tm-1")).build());
        }
        assertThat(eventLogFiles()).extracting(p -> p.getFileName().toString()).containsExactly("events.0", "events.1");

        Leader second = recovered(leader("session-2"));
        register(second, sourceOutputs);
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).as("kept for the pending recovery").hasSize(2);
        assertThat(second.taskManagers().releases()).isEmpty();
        second.dispatcher().startRecoveredJobs();
        main.runDue();

        assertThat(second.taskManagers().releases())
                .containsExactlyInAnyOrder(new Release("tm-1", JOB_ID, List.of(), true),
                        new Release("tm-2", JOB_ID, List.of(), true));
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).isEmpty();
        assertNewRunLogged("the old log is deleted");
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
        assertThat(status(second).getRestoredTasks()).isZero();

        runSources(second, second.deployments(SOURCE));
        second.deployments(COUNT).forEach(d -> finish(second, d));
        awaitCleanResult();
        assertThat(results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aTornLastRecordIsIgnoredAndTheRestIsRecovered() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        int recorded = eventsOnDisk().size();
        Path log = eventLogFiles().get(0);
        // The first leader died while writing VertexInitialized of the count (so before the count's
        // deployments were logged): the file ends a byte into that record.
        assertThat(eventsOnDisk().get(recorded - 1).hasExecutionsDeployed()).as("the last record").isTrue();
        byte[] whole = Files.readAllBytes(log);
        for (int cut = 1; cut < whole.length; cut++) {
            Files.write(log, java.util.Arrays.copyOf(whole, whole.length - cut));
            if (eventsOnDisk().size() == recorded - 2) {
                break;
            }
        }
        assertThat(eventsOnDisk()).hasSize(recorded - 2)
                .noneMatch(e -> e.hasVertexInitialized() && e.getVertexInitialized().getVertex() == COUNT);

        Leader second = recovered(leader("session-2"));
        register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        main.runDue();

        assertThat(second.deployments(SOURCE)).as("both sources are restored").isEmpty();
        assertThat(status(second).getRestoredTasks()).isEqualTo(2);
        // The torn event was the only one to name the count: it is scheduled as if it never ran.
        assertThat(second.deployments(COUNT)).isNotEmpty().allSatisfy(d -> assertThat(d.attemptNumber()).isZero());
        assertThat(log).as("the old log stays for the next failover").exists();

        second.deployments(COUNT).forEach(d -> finish(second, d));
        awaitCleanResult();
        assertThat(results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aJobCancelledWhileItWaitsForItsTaskManagersNeverResumes() {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        Leader second = recovered(leader("session-2"));
        // Only tm-1 comes back: the job waits for tm-2's source output.
        register(second, sourceOutputs.stream().filter(p -> p.endsWith("@tm-1")).toList());
        second.dispatcher().startRecoveredJobs();
        main.runDue();
        assertThat(second.taskManagers().deployments()).as("still waiting").isEmpty();
        assertThat(status(second).getState()).as("a job being recovered is running to its user, not CREATED")
                .isEqualTo(JobState.JOB_RUNNING);

        second.dispatcher().cancel(JOB_ID);
        awaitCleanResult();
        assertThat(results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.CANCELED);
        assertThat(second.taskManagers().releases()).contains(new Release("tm-1", JOB_ID, List.of(), true));

        main.advance(60_000);
        assertThat(second.taskManagers().deployments()).as("the wait ended, but the job stays cancelled").isEmpty();
        assertThat(status(second).getState()).isEqualTo(JobState.JOB_CANCELED);
    }

    @Test
    void aCountTaskWhoseFinishTheFirstLeaderNeverGotIsKeptFromTheFinishItsTaskManagerCarried() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        // WordCount's count runs as one task here: with its finish kept, nothing is left to run.
        Deployment lost = firstCountDeployments.get(0);
        String otherTm = lost.tmId().equals("tm-1") ? "tm-2" : "tm-1";
        // Store I/O waits for the test: the job's cleanup would delete the log it reads back.
        ManualMailbox io = new ManualMailbox();
        Leader second = leader("session-2", io);
        CompletableFuture<Void> recovered = second.dispatcher().recover();
        io.runDue();
        main.runDue();
        assertThat(recovered).isCompleted();
        second.dispatcher().startRecoveredJobs();
        main.runDue();

        assertThat(registerWithReports(second, otherTm, sourceOutputs, List.of())).isCompleted();
        assertThat(second.taskManagers().deployments()).as("waits for the other TaskManager").isEmpty();
        // Its registration brings the last source output the recovery waits for, and the lost finish.
        assertThat(registerWithReports(second, lost.tmId(), sourceOutputs, List.of(lostFinish(lost))))
                .isCompleted();

        assertThat(second.deployments(SOURCE)).isEmpty();
        assertThat(describe(second.deployments(COUNT))).as("the count task whose finish was carried is kept")
                .hasSize(firstCountDeployments.size() - 1)
                .doesNotContain(describe(lost)).allMatch(d -> d.endsWith("#1"));
        assertThat(status(second).getRestoredTasks()).isEqualTo(2 + 1);
        assertThat(eventsOnDisk()).as("the finish is in the durable log").filteredOn(JobEvent::hasExecutionFinished)
                .extracting(JobEvent::getExecutionFinished)
                .filteredOn(e -> e.getVertex() == COUNT).singleElement().satisfies(e -> {
                    assertThat(e.getSubtask()).isEqualTo(lost.subtask());
                    assertThat(e.getAttempt()).isZero();
                    assertThat(e.getTmId()).isEqualTo(lost.tmId());
                    assertThat(e.getTmAddress()).isEqualTo(lost.tmId() + ".test:6122");
                    assertThat(e.getRecordsOut()).isEqualTo(2);
                    assertThat(e.getCollectedList()).extracting(c -> c.getName()).containsExactly("lost-finish");
                });

        second.deployments(COUNT).forEach(d -> finish(second, d));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    io.runDue();
                    main.runDue();
                    return results.hasCleanJobResultEntry(JOB_ID);
                });
        var result = results.getResult(JOB_ID).orElseThrow();
        assertThat(result.state()).isEqualTo(JobOutcome.FINISHED);
        assertThat(result.collected()).as("the kept task's records are in the result")
                .anySatisfy(c -> assertThat(c.data()).containsExactly(1, 42, 1, 43));
    }

    @Test
    void aFinishThatCannotBeLoggedFailsTheRegistrationAndIsIgnoredWhenItRegistersAgain() throws IOException {
        List<String> sourceOutputs = firstLeaderDiesWhileTheCountRuns();
        Deployment lost = firstCountDeployments.get(0);
        String otherTm = lost.tmId().equals("tm-1") ? "tm-2" : "tm-1";
        Leader second = recovered(leader("session-2"));
        // The job's new event log cannot be created once the old one was read.
        for (Path file : eventLogFiles()) {
            Files.delete(file);
        }
        Files.delete(eventLogDirectory());
        Files.writeString(eventLogDirectory(), "in the way");
        second.dispatcher().startRecoveredJobs();
        main.runDue();
        registerWithReports(second, otherTm, sourceOutputs, List.of());

        CompletableFuture<Void> refused = registerWithReports(second, lost.tmId(), sourceOutputs,
                List.of(lostFinish(lost)));

        assertThat(refused).failsWithin(Duration.ZERO).withThrowableThat().havingRootCause()
                .isInstanceOf(StatusRuntimeException.class)
                .withMessageContaining("UNAVAILABLE").withMessageContaining("register again");
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).as("not registered")
                .doesNotContainValue(lost.tmId());
        assertThat(second.taskManagers().deployments()).as("nothing planned").isEmpty();

        assertThat(registerWithReports(second, lost.tmId(), sourceOutputs, List.of(lostFinish(lost))))
                .as("registering again, the finish is ignored").isCompleted();
        assertThat(describe(second.deployments(COUNT))).as("so the task runs again").contains("v1/"
                + lost.subtask() + "#1");
    }

    /** Flips the first payload byte of the record with this index: its checksum no longer matches. */
    private static void flipPayloadByte(Path logFile, int recordIndex) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "rw")) {
            long offset = 8; // the file header
            for (int i = 0; i < recordIndex; i++) {
                file.seek(offset);
                offset += 8 + file.readInt();
            }
            file.seek(offset + 8);
            int b = file.read();
            file.seek(offset + 8);
            file.write(b ^ 0xFF);
        }
    }
}

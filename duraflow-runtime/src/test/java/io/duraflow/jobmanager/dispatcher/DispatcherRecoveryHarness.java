package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.examples.WordCount;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.io.IOException;
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

/**
 * Batch job recovery through the dispatcher: a first leader runs word count with recovery on until
 * its sources finished and the count runs, then dies ({@link #firstLeaderDiesWhileTheCountRuns()});
 * a second leader recovers the stored job from the job event log on disk and the partitions its
 * TaskManagers report. The main thread and clock are manual, store I/O runs inline unless a test
 * gives a leader its own, and the TaskManagers are played by the test through
 * {@link RecordingGateways}. Only the job event writer has a thread of its own; the test waits for
 * what it wrote. {@link #close()} closes every leader's dispatcher.
 */
final class DispatcherRecoveryHarness implements AutoCloseable {
    static final String JOB_ID = "job-1";
    static final Map<String, String> PARAMS = Map.of("words", "100", "splits", "4");
    static final int PARALLELISM = 2;
    static final int SOURCE = 0;
    static final int COUNT = 1;
    static final Configuration CONFIG = Configuration.fromMap(Map.of(
            JobRecoveryOptions.ENABLED.key(), "on",
            // Each event is written as soon as it is appended: what is on disk is all that was recorded, once
            // the writer caught up, whatever the timing.
            JobRecoveryOptions.WRITE_BUFFER_SIZE.key(), "1 b",
            JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL.key(), "1 h"));

    private final Path tempDir;
    final ManualMailbox main = new ManualMailbox();
    final InMemoryJobResultStore results = new InMemoryJobResultStore();
    final InMemoryJobGraphStore jobGraphs = new InMemoryJobGraphStore();
    final JobGraph graph = JobPlans.build(WordCount.class.getName(), PARAMS, PARALLELISM);
    final List<Leader> leaders = new ArrayList<>();
    /** The count tasks the first leader deployed, running when it died. */
    List<Deployment> firstCountDeployments = List.of();
    volatile String leadingSession;

    /** One leadership session: its dispatcher and resource manager, and the calls to its TaskManagers. */
    record Leader(String session, Dispatcher dispatcher, ResourceManager resourceManager,
            RecordingGateways taskManagers) {
        List<Deployment> deployments(int vertex) {
            return taskManagers.deployments().stream().filter(d -> d.vertex() == vertex).toList();
        }
    }

    DispatcherRecoveryHarness(Path tempDir) {
        this.tempDir = tempDir;
    }

    Leader leader(String session) {
        return leader(session, Runnable::run);
    }

    /** A leader whose store I/O runs on {@code io}. */
    Leader leader(String session, Executor io) {
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

    /** Closes the dispatchers: a leader that still runs a job stops its event writer. */
    @Override
    public void close() {
        leaders.forEach(l -> l.dispatcher().close());
    }

    /** The leader after phase one of its take-over (recover), with store I/O inline. */
    Leader recovered(Leader leader) {
        CompletableFuture<Void> recovered = leader.dispatcher().recover();
        main.runDue();
        assertThat(recovered).isCompleted();
        return leader;
    }

    Path eventLogDirectory() {
        return tempDir.resolve("jobs").resolve(JOB_ID).resolve(Dispatcher.JOB_EVENTS_DIRECTORY);
    }

    List<Path> eventLogFiles() throws IOException {
        if (!Files.isDirectory(eventLogDirectory())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(eventLogDirectory())) {
            return files.sorted().toList();
        }
    }

    // ------------------------------------------------------------------ playing the TaskManagers

    void register(Leader leader, List<String> heldPartitions) {
        for (String tmId : List.of("tm-1", "tm-2")) {
            List<HeldPartition> held = heldPartitions.stream().filter(p -> p.endsWith("@" + tmId))
                    .map(p -> HeldPartition.newBuilder().setJobId(JOB_ID)
                            .setPartitionId(p.substring(0, p.indexOf('@'))).build())
                    .toList();
            leader.resourceManager().register(tmId, tmId + ".test:6122", 2, held);
        }
        main.runDue();
    }

    void send(Leader leader, Deployment d, TaskStateUpdate.Builder update) {
        leader.dispatcher().onTaskStateUpdate(update.setJmSessionId(d.task().getJmSessionId()).setTmId(d.tmId())
                .setAttempt(d.attempt()).build());
        main.runDue();
    }

    void running(Leader leader, Deployment d) {
        send(leader, d, TaskStateUpdate.newBuilder().setState(TaskState.RUNNING));
    }

    /** Reports the task finished, with 10 bytes in each subpartition of each output. */
    void finish(Leader leader, Deployment d) {
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
    boolean requestSplit(Leader leader, Deployment d) {
        int answered = leader.taskManagers().eventsTo(d.attempt()).size();
        leader.dispatcher().onOperatorEvent(OperatorEventFromTask.newBuilder().setAttempt(d.attempt())
                .setNodeId(graph.vertex(d.vertex()).head().id())
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build());
        List<RecordingGateways.Event> events = leader.taskManagers().eventsTo(d.attempt());
        assertThat(events).hasSize(answered + 1);
        return events.get(answered).event().hasAddSplits();
    }

    /** The source tasks run, ask for splits in turn until there are none, and finish. */
    void runSources(Leader leader, List<Deployment> sources) {
        sources.forEach(d -> running(leader, d));
        List<Deployment> asking = new ArrayList<>(sources);
        while (!asking.isEmpty()) {
            asking.removeIf(d -> !requestSplit(leader, d));
        }
        sources.forEach(d -> finish(leader, d));
    }

    // ------------------------------------------------------------------ waiting for the other threads

    List<JobEvent> eventsOnDisk() throws IOException {
        return JobEventReader.readAll(eventLogDirectory()).events();
    }

    /**
     * The old log is gone and the new one starts with RunStarted (written by the job's writer
     * thread, so it is awaited) and holds nothing of the old run.
     */
    void assertNewRunLogged(String why) {
        awaitLogged(events -> !events.isEmpty() && events.get(0).hasRunStarted());
        try {
            assertThat(eventsOnDisk()).as(why).noneMatch(JobEvent::hasExecutionFinished);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Waits until the job event log on disk satisfies the condition. */
    void awaitLogged(Predicate<List<JobEvent>> condition) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> condition.test(eventsOnDisk()));
    }

    /** Runs the main thread until the job's result is stored and cleaned up. */
    void awaitCleanResult() {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).pollInSameThread()
                .until(() -> {
                    main.runDue();
                    return results.hasCleanJobResultEntry(JOB_ID);
                });
    }

    JobStatus status(Leader leader) {
        CompletableFuture<JobStatus> status = leader.dispatcher().status(JOB_ID);
        main.runDue();
        return status.join();
    }

    static String describe(Deployment d) {
        return "v" + d.vertex() + "/" + d.subtask() + "#" + d.attemptNumber();
    }

    static List<String> describe(List<Deployment> deployments) {
        return deployments.stream().map(DispatcherRecoveryHarness::describe).toList();
    }

    // ------------------------------------------------------------------ the first leader

    /**
     * The first leader runs the job until its sources finished and the count runs, then dies.
     *
     * @return the sources' finished output, as "partition id@TaskManager id"
     */
    List<String> firstLeaderDiesWhileTheCountRuns() {
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
}

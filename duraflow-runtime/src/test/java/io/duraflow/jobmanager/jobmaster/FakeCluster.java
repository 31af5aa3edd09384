package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.config.ClusterOptions;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Event;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * One {@link JobMaster} wired to a manual clock, fake slots and recording gateways, and a
 * driver that plays the TaskManagers: it answers recorded deployments with task state updates
 * and lets source tasks ask the coordinator for splits. Nothing runs on its own: the test
 * calls the driver and moves the clock.
 */
public final class FakeCluster {
    public static final String JOB_ID = "job-1";
    public static final String SESSION = "session-1";
    /** Bytes a task reports per subpartition when a test does not choose. */
    static final long DEFAULT_BYTES = 10;

    /**
     * 8 key groups; adaptive parallelism between 1 and 4 at 100 bytes per task; 3 restarts,
     * 1 s apart; the default {@code collect.max-bytes}.
     */
    public static final JobSettings SETTINGS = new JobSettings(TestJobs.DEFAULT_PARALLELISM, 8, 1, 4, 100, 3, 1_000,
            ClusterOptions.COLLECT_MAX_BYTES.defaultValue().bytes());

    public final ManualMailbox scheduler = new ManualMailbox();
    public final FakeSlotPool slots;
    public final RecordingGateways gateways = new RecordingGateways(scheduler);
    final JobGraph graph;
    final JobSettings settings;
    public final JobMaster job;
    final List<JobMasterState> terminations = new ArrayList<>();

    public FakeCluster(JobGraph graph, JobSettings settings, FakeSlotPool slots) {
        this(graph, settings, slots, SESSION);
    }

    /** A job master of the leadership session {@code session} (a new leader has a new one). */
    public FakeCluster(JobGraph graph, JobSettings settings, FakeSlotPool slots, String session) {
        this(graph, settings, slots, session, recording -> recording);
    }

    /** A job master that talks to the recording gateways through {@code wrap} (e.g. one that throws). */
    public FakeCluster(JobGraph graph, JobSettings settings, FakeSlotPool slots, String session,
            UnaryOperator<TaskManagerGateways> wrap) {
        this.graph = graph;
        this.settings = settings;
        this.slots = slots;
        this.job = new JobMaster(JOB_ID, "test.Job", Map.of("input", "numbers"), Map.of(), graph, settings, session,
                slots, wrap.apply(gateways), scheduler, scheduler::now,
                terminated -> terminations.add(terminated.state()), scheduler.now());
    }

    static FakeCluster started(JobGraph graph, JobSettings settings, FakeSlotPool slots) {
        FakeCluster cluster = new FakeCluster(graph, settings, slots);
        cluster.start();
        return cluster;
    }

    static FakeCluster started(JobGraph graph, FakeSlotPool slots) {
        return started(graph, SETTINGS, slots);
    }

    public void start() {
        prepare();
        job.start();
    }

    /** Prepares the job master as the dispatcher does, with the coordinators started on this thread. */
    public void prepare() {
        try {
            job.prepareAsync(Runnable::run, Runnable::run, Duration.ofSeconds(30)).join();
        } catch (CompletionException e) {
            throw new AssertionError("job could not be prepared", e.getCause());
        }
    }

    /**
     * Batch job recovery: prepares the job master, takes over what the plan restores, and starts
     * it, as the dispatcher of a new leader does.
     *
     * @return how many executions were restored
     */
    int startRecovered(RecoveryPlan plan) {
        prepare();
        int restored;
        try {
            restored = job.restore(plan);
        } catch (Exception e) {
            throw new AssertionError("job could not be recovered", e);
        }
        job.start();
        return restored;
    }

    /** Max parallelism (key groups) of the streaming jobs' checkpoints. */
    static final int MAX_PARALLELISM = 128;
    /** Periodic checkpoints of streaming jobs, every second; one failed checkpoint in a row is tolerated. */
    public static final long CHECKPOINT_INTERVAL_MS = 1_000;

    /**
     * Streaming: checkpoints under {@code root} (directories and the completed store, as a new
     * leader finds them), with I/O run at once on the calling thread (its results come back
     * through the scheduler, like from the real I/O thread).
     */
    public void enableCheckpoints(java.nio.file.Path root) {
        enableCheckpoints(root, Runnable::run);
    }

    /** {@link #enableCheckpoints(java.nio.file.Path)} with the coordinator's I/O on {@code ioExecutor}. */
    public void enableCheckpoints(java.nio.file.Path root, java.util.concurrent.Executor ioExecutor) {
        io.duraflow.fs.FileSystem fs = io.duraflow.fs.LocalFileSystem.INSTANCE;
        io.duraflow.checkpoint.CheckpointCoordinatorConfig config = new io.duraflow.checkpoint.CheckpointCoordinatorConfig(
                CHECKPOINT_INTERVAL_MS, 60_000, 0, 1, 1, 1, MAX_PARALLELISM);
        io.duraflow.fs.FsPath pointers = io.duraflow.checkpoint.FileSystemCompletedCheckpointStore.pointerDirectory(
                io.duraflow.fs.FsPath.of(root.resolve("ha/jobs/" + JOB_ID)));
        job.enableCheckpoints(new JobMaster.CheckpointSetup(config,
                io.duraflow.state.CheckpointDirectories.of(io.duraflow.fs.FsPath.of(root.resolve("checkpoints")), JOB_ID),
                fs, ioExecutor, new io.duraflow.checkpoint.StandaloneCheckpointIdCounter(),
                new io.duraflow.checkpoint.FileSystemCompletedCheckpointStore(fs, fs, pointers, JOB_ID, 1, () -> true)));
    }

    /** Starts a streaming job (past the refusal of streaming jobs that submissions still have). */
    public void startStreaming() {
        try {
            job.prepareAsync(Runnable::run, Runnable::run, Duration.ofSeconds(30)).join();
        } catch (CompletionException e) {
            throw new AssertionError("job could not be prepared", e.getCause());
        }
        job.start();
        scheduler.runDue();
    }

    static JobSettings withRestarts(int maxRestarts) {
        return new JobSettings(SETTINGS.defaultParallelism(), SETTINGS.keyGroups(), SETTINGS.minParallelism(),
                SETTINGS.maxParallelism(), SETTINGS.bytesPerTask(), maxRestarts, SETTINGS.restartDelayMs(),
                SETTINGS.collectMaxBytes());
    }

    static JobSettings withCollectMaxBytes(long collectMaxBytes) {
        return new JobSettings(SETTINGS.defaultParallelism(), SETTINGS.keyGroups(), SETTINGS.minParallelism(),
                SETTINGS.maxParallelism(), SETTINGS.bytesPerTask(), SETTINGS.maxRestarts(), SETTINGS.restartDelayMs(),
                collectMaxBytes);
    }

    // ------------------------------------------------------------------ what the job master did

    Execution execution(int vertex, int subtask) {
        Execution[] subtasks = job.executions(vertex);
        if (subtasks == null) {
            throw new AssertionError("vertex " + vertex + " has no parallelism yet");
        }
        return subtasks[subtask];
    }

    List<Deployment> deploymentsOf(int vertex) {
        return gateways.deployments().stream().filter(d -> d.vertex() == vertex).toList();
    }

    List<Deployment> deploymentsOf(int vertex, int subtask) {
        return deploymentsOf(vertex).stream().filter(d -> d.subtask() == subtask).toList();
    }

    /** The deployment of the subtask's current attempt. */
    public Deployment current(int vertex, int subtask) {
        Execution execution = execution(vertex, subtask);
        return deploymentsOf(vertex, subtask).stream().filter(d -> d.attemptNumber() == execution.attempt())
                .findFirst()
                .orElseThrow(() -> new AssertionError(execution + " (" + execution.state() + ") is not deployed"));
    }

    /** Deployments of current attempts that the job master thinks are deploying or running. */
    public List<Deployment> live() {
        return gateways.deployments().stream().filter(this::isLive).toList();
    }

    public List<Deployment> live(int vertex) {
        return live().stream().filter(d -> d.vertex() == vertex).toList();
    }

    private boolean isLive(Deployment d) {
        Execution[] subtasks = job.executions(d.vertex());
        Execution execution = subtasks[d.subtask()];
        return execution.attempt() == d.attemptNumber() && execution.state().isActive();
    }

    /** The partition the deployed task was told to write (the vertex has exactly one output). */
    static String outputPartition(Deployment d) {
        if (d.task().getOutputsCount() != 1) {
            throw new AssertionError(describe(d.attempt()) + " has " + d.task().getOutputsCount() + " outputs");
        }
        return d.task().getOutputs(0).getPartitionId();
    }

    /**
     * The partitions the TaskManagers hold for this job: the outputs of finished executions,
     * partition id -> TaskManager (as they report them to a new leader).
     */
    Map<String, String> finishedPartitions() {
        Map<String, String> held = new TreeMap<>();
        for (JobVertex vertex : graph.vertices()) {
            Execution[] subtasks = job.executions(vertex.id());
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (execution.state() == ExecutionState.FINISHED) {
                    vertex.outputs().forEach(edge -> held.put(execution.partitionId(edge), execution.tmId()));
                }
            }
        }
        return held;
    }

    /** The splits sent to one attempt in AddSplits events. */
    public List<RangeSplit> splitsSentTo(AttemptId attempt) {
        List<RangeSplit> splits = new ArrayList<>();
        for (Event event : gateways.eventsTo(attempt)) {
            if (event.event().hasAddSplits()) {
                event.event().getAddSplits().getSplitsList()
                        .forEach(bytes -> splits.add(RangeSplit.SERIALIZER.fromBytes(bytes.toByteArray())));
            }
        }
        return splits;
    }

    /** "v1/0#2" for vertex 1, subtask 0, attempt 2. */
    static String describe(AttemptId attempt) {
        return "v" + attempt.getVertex() + "/" + attempt.getSubtask() + "#" + attempt.getAttempt();
    }

    /**
     * The splits read by the attempts of a source vertex that finished (the current attempt of
     * each subtask, which must be FINISHED), in the order of their ranges.
     */
    public List<RangeSplit> splitsReadByFinishedAttempts(int vertex) {
        List<RangeSplit> read = new ArrayList<>();
        for (Execution execution : job.executions(vertex)) {
            if (execution.state() != ExecutionState.FINISHED) {
                throw new AssertionError(execution + " is " + execution.state() + ", not FINISHED");
            }
            read.addAll(splitsSentTo(execution.attemptId()));
        }
        read.sort(Comparator.comparingLong(RangeSplit::from));
        return read;
    }

    // ------------------------------------------------------------------ playing the TaskManagers

    public void running(Deployment d) {
        send(update(d, TaskState.RUNNING));
    }

    /**
     * Reports the task finished. Each output gets the given bytes per subpartition (one value
     * per subpartition), or {@link #DEFAULT_BYTES} each when none are given.
     */
    public void finish(Deployment d, long... bytesPerSubpartition) {
        TaskStateUpdate.Builder update = update(d, TaskState.FINISHED).setRecordsIn(1).setRecordsOut(1);
        for (OutputSpec spec : d.task().getOutputsList()) {
            long[] bytes = bytesPerSubpartition;
            if (bytes.length == 0) {
                bytes = new long[spec.getSubpartitions()];
                Arrays.fill(bytes, DEFAULT_BYTES);
            } else if (bytes.length != spec.getSubpartitions()) {
                throw new AssertionError("edge " + spec.getEdgeId() + " has " + spec.getSubpartitions()
                        + " subpartitions, the test gave " + bytes.length + " sizes");
            }
            SubpartitionSizes.Builder sizes = SubpartitionSizes.newBuilder().setEdgeId(spec.getEdgeId())
                    .setPartitionId(spec.getPartitionId()).setRecords(1);
            Arrays.stream(bytes).forEach(sizes::addBytes);
            update.addOutputs(sizes);
        }
        send(update);
    }

    /**
     * The live subtasks of a source vertex report running, then ask for a split in turn (subtask
     * 0, 1, ..., 0, 1, ...) until each is told there are no more, then finish in subtask order.
     */
    void readInTurnsAndFinish(int vertex) {
        List<Deployment> readers = live(vertex);
        readers.forEach(this::running);
        List<Deployment> asking = new ArrayList<>(readers);
        while (!asking.isEmpty()) {
            asking.removeIf(d -> requestSplit(d).isEmpty());
        }
        readers.forEach(this::finish);
    }

    /** RUNNING, then (for a source) every split until NoMoreSplits, then FINISHED. */
    void run(Deployment d, long... bytesPerSubpartition) {
        running(d);
        if (graph.vertex(d.vertex()).isSource()) {
            readAllSplits(d);
        }
        finish(d, bytesPerSubpartition);
    }

    /** Runs every live task of a vertex to its end, each reporting the same bytes. */
    void runLive(int vertex, long... bytesPerSubpartition) {
        for (Deployment d : live(vertex)) {
            run(d, bytesPerSubpartition);
        }
    }

    public void fail(Deployment d, String cause) {
        send(update(d, TaskState.FAILED).setFailure(cause));
    }

    void failMissingPartition(Deployment d, String partitionId) {
        send(update(d, TaskState.FAILED).setFailure("partition " + partitionId + " not found")
                .setMissingPartitionId(partitionId));
    }

    public void canceled(Deployment d) {
        send(update(d, TaskState.CANCELED));
    }

    void send(TaskStateUpdate.Builder update) {
        job.onTaskStateUpdate(update.build());
    }

    static TaskStateUpdate.Builder update(Deployment d, TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(d.task().getJmSessionId()).setTmId(d.tmId())
                .setAttempt(d.attempt())
                .setState(state);
    }

    /** A source task asks for a split: the split it got, or empty when told there are no more. */
    Optional<RangeSplit> requestSplit(Deployment d) {
        int answered = gateways.eventsTo(d.attempt()).size();
        job.onOperatorEvent(d.attempt(), graph.vertex(d.vertex()).head().id(),
                OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance()).build());
        List<Event> events = gateways.eventsTo(d.attempt());
        if (events.size() != answered + 1) {
            throw new AssertionError(describe(d.attempt()) + " asked for a split and got " + (events.size() - answered)
                    + " answers");
        }
        OperatorEvent answer = events.get(answered).event();
        if (answer.hasNoMoreSplits()) {
            return Optional.empty();
        }
        List<RangeSplit> splits = new ArrayList<>();
        answer.getAddSplits().getSplitsList()
                .forEach(bytes -> splits.add(RangeSplit.SERIALIZER.fromBytes(bytes.toByteArray())));
        if (splits.size() != 1) {
            throw new AssertionError("one request got " + splits);
        }
        return Optional.of(splits.get(0));
    }

    List<RangeSplit> readAllSplits(Deployment d) {
        List<RangeSplit> read = new ArrayList<>();
        for (Optional<RangeSplit> split = requestSplit(d); split.isPresent(); split = requestSplit(d)) {
            read.add(split.get());
        }
        return read;
    }
}

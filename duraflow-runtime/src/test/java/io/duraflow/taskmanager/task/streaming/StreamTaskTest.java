package io.duraflow.taskmanager.task.streaming;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointKind;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskRestore;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;

/**
 * Streaming tasks of one job on one TaskManager, connected by local pipelined channels, with the
 * test acting as the JobManager: it answers split requests, triggers checkpoints, collects the
 * acknowledgements and notifies. Job: two sources of longs -> keyBy(value % 10) -> running sum per
 * key (a value state) -> collect, parallelism 2 (each keyed task aligns barriers of two channels).
 */
@Timeout(120)
class StreamTaskTest {
    /** The tasks' jobs take checkpoints (the tests trigger them): without, a task finishes at the end of its input. */
    private static final String INTERVAL = "execution.checkpointing.interval";

    private static final long RECORDS = 20_000;
    private static final long KEYS = 10;
    private static final long HALF = RECORDS / 2;
    private static final TypeSerializer<Tuple2<Long, Long>> SUM_TYPE = Types.tuple(Types.LONG, Types.LONG);

    @TempDir
    Path dir;

    /** The TaskManager of every task, and where the test records what tasks tell the JobManager. */
    private final Cluster cluster = new Cluster("tm-test", null);
    /** A second TaskManager on loopback for the keyed tasks of the remote variant; null otherwise. */
    private Cluster remote;
    private JobGraph graph;
    private JobVertex sources;
    private JobVertex sums;

    @AfterEach
    void stop() {
        if (remote != null) {
            remote.close();
        }
        cluster.close();
    }

    /** Keeps each key's running sum in a value state and emits (key, sum) for every record. */
    static final class RunningSum extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
        private ValueState<Long> sum;

        @Override
        public void open(RuntimeContext context) {
            sum = context.state().getState(new ValueStateDescriptor<>("sum", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context<Long> context, Collector<Tuple2<Long, Long>> out) {
            long updated = (sum.value() == null ? 0 : sum.value()) + value;
            sum.update(updated);
            out.collect(Tuple2.of(context.currentKey(), updated));
        }
    }

    /**
     * A graph of its own for every task, as a TaskManager gives each streaming task: the
     * function objects keep per-task fields.
     */
    private static JobGraph build() {
        JobBuilder builder = new JobBuilder("running-sum");
        builder.fromSource("numbers", new SequenceSource(0, RECORDS, 2)).uid("numbers")
                .keyBy(value -> value % KEYS, Types.LONG)
                .process(new RunningSum(), SUM_TYPE).uid("running-sum")
                .collect("sums");
        return JobGraph.compile(builder.plan(), 2, RuntimeMode.STREAMING);
    }

    private void compile() {
        graph = build();
        sources = graph.vertices().stream().filter(JobVertex::isSource).findFirst().orElseThrow();
        sums = graph.vertices().stream().filter(v -> !v.isSource()).findFirst().orElseThrow();
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "keyed tasks on {0} TaskManager")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"the same", "another"})
    void aRestoreFromAnAcknowledgedCheckpointContinuesExactlyAndTheJobEndsWithAFinalCheckpoint(String where)
            throws Exception {
        if (where.equals("another")) {
            // Its records and barriers reach the keyed tasks over credit-based gRPC streams.
            remote = new Cluster("tm-remote", cluster);
        }
        compile();
        // ---- attempt 0: half of the input, checkpoint 1, the other half, then a "failure".
        Map<AttemptId, Task> first = deployAll(0, Map.of());
        for (int s = 0; s < 2; s++) {
            awaitSplitRequests(sourceAttempt(s, 0), 1);
            deliverSplit(first, sourceAttempt(s, 0), s * HALF, s * HALF + HALF / 2);
        }
        for (int s = 0; s < 2; s++) {
            awaitSplitRequests(sourceAttempt(s, 0), 2); // the sources read their first quarter and wait
        }
        trigger(first, sourceAttempt(0, 0), 1);
        trigger(first, sourceAttempt(1, 0), 1);
        Map<AttemptId, AcknowledgeCheckpointRequest> checkpoint1 = awaitAcks(1, 4);
        for (int k = 0; k < 2; k++) {
            TaskStateSnapshot state = StateHandleCodec.fromProto(checkpoint1.get(sumAttempt(k, 0)).getState());
            assertThat(state.operators().get("running-sum").keyedState()).as("keyed state of sum task " + k)
                    .isNotEmpty();
            assertThat(state.operators().get(graph.uid(collectNode())).operatorState()).isNotEmpty();
        }
        for (int s = 0; s < 2; s++) {
            deliverSplit(first, sourceAttempt(s, 0), s * HALF + HALF / 2, s * HALF + HALF);
            awaitSplitRequests(sourceAttempt(s, 0), 3);
            deliver(first, sourceAttempt(s, 0), noMoreSplits());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.size() == 2);
        for (int k = 0; k < 2; k++) {
            first.get(sumAttempt(k, 0)).cancel();
        }
        for (int s = 0; s < 2; s++) {
            first.get(sourceAttempt(s, 0)).cancel();
        }
        cluster.joinAll();
        assertThat(cluster.finalStates()).doesNotContain(TaskState.FINISHED).hasSize(4);

        // ---- attempt 1: restored from checkpoint 1; the enumerator gives the second quarter again.
        Map<AttemptId, TaskRestore> restores = new HashMap<>();
        checkpoint1.forEach((attempt, ack) -> restores.put(attempt.toBuilder().setAttempt(1).build(),
                TaskRestore.newBuilder().setCheckpointId(1).setState(ack.getState()).build()));
        cluster.reports.clear();
        cluster.inputEnds.clear();
        Map<AttemptId, Task> second = deployAll(1, restores);
        for (int s = 0; s < 2; s++) {
            awaitSplitRequests(sourceAttempt(s, 1), 1);
            deliverSplit(second, sourceAttempt(s, 1), s * HALF + HALF / 2, s * HALF + HALF);
            awaitSplitRequests(sourceAttempt(s, 1), 2);
            deliver(second, sourceAttempt(s, 1), noMoreSplits());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.size() == 2);
        assertThat(cluster.finalStates()).as("no task finishes before a checkpoint after its end completed").isEmpty();
        trigger(second, sourceAttempt(0, 1), 2);
        trigger(second, sourceAttempt(1, 1), 2);
        awaitAcks(2, 4);
        // The JobManager may trigger the keyed tasks once it saw the sources finish, before the
        // keyed tasks read the end of their input: they take that checkpoint when the end arrived.
        trigger(second, sumAttempt(0, 1), 3);
        trigger(second, sumAttempt(1, 1), 3);
        for (Task task : second.values()) {
            task.notifyCheckpoint(completed(task.attempt(), 2));
        }
        // The sources end their partitions; the keyed tasks' input ends, and they take checkpoint 3.
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.size() == 4);
        awaitAcks(3, 2);
        second.get(sumAttempt(0, 1)).notifyCheckpoint(completed(sumAttempt(0, 1), 3));
        second.get(sumAttempt(1, 1)).notifyCheckpoint(completed(sumAttempt(1, 1), 3));
        cluster.joinAll();
        assertThat(cluster.finalStates()).containsOnly(TaskState.FINISHED).hasSize(4);
        assertThat(cluster.declines).isEmpty();

        // Exactly once: every record counted once per key, and the collected output holds one record per input record.
        Map<Long, Long> lastSum = new HashMap<>();
        Map<Long, Long> count = new HashMap<>();
        long collected = 0;
        for (TaskStateUpdate report : cluster.reports) {
            for (CollectedResult result : report.getCollectedList()) {
                DataReader in = new DataReader(result.getData().toByteArray());
                while (in.hasRemaining()) {
                    int length = in.readVarInt();
                    Tuple2<Long, Long> sum = SUM_TYPE.read(new DataReader(in.readBytes(length)));
                    lastSum.merge(sum.f0(), sum.f1(), Math::max);
                    count.merge(sum.f0(), 1L, Long::sum);
                    collected++;
                }
            }
        }
        assertThat(collected).isEqualTo(RECORDS);
        for (long key = 0; key < KEYS; key++) {
            long expectedSum = 0;
            for (long value = key; value < RECORDS; value += KEYS) {
                expectedSum += value;
            }
            assertThat(lastSum.get(key)).as("sum of key " + key).isEqualTo(expectedSum);
            assertThat(count.get(key)).as("records of key " + key).isEqualTo(RECORDS / KEYS);
        }
    }

    /**
     * Records the test sink's commits: per checkpoint (its committable), the records it made visible.
     * A commit of the same checkpoint again (a restore re-applying it) must carry the same records.
     */
    private final Map<Long, List<Long>> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger conflictingCommits = new java.util.concurrent.atomic.AtomicInteger();
    /** The job lineage each cleanup of the test sink's subtask got. */
    private final List<java.util.Set<String>> cleanups = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Prepares (checkpoint id, records written since the previous prepare); the committer records them. */
    private final class RecordingTwoPhaseSink implements io.duraflow.api.sink.TwoPhaseCommittingSink<Long, Tuple2<Long, List<Long>>> {
        @Override
        public io.duraflow.api.sink.CommittingSinkWriter<Long, Tuple2<Long, List<Long>>> createWriter(
                io.duraflow.api.sink.SinkContext context) {
            return new io.duraflow.api.sink.CommittingSinkWriter<>() {
                private List<Long> written = new ArrayList<>();

                @Override
                public void write(Long record) {
                    written.add(record);
                }

                @Override
                public List<Tuple2<Long, List<Long>>> prepareCommit(long checkpointId) {
                    List<Long> batch = written;
                    written = new ArrayList<>();
                    return List.of(Tuple2.of(checkpointId, batch));
                }

                @Override
                public void finish() {
                    throw new AssertionError("a streaming sink is never finished: its final checkpoint commits");
                }
            };
        }

        @Override
        public io.duraflow.api.sink.Committer<Tuple2<Long, List<Long>>> createCommitter(io.duraflow.api.sink.SinkContext context) {
            return committables -> {
                for (Tuple2<Long, List<Long>> committable : committables) {
                    List<Long> earlier = committed.putIfAbsent(committable.f0(), committable.f1());
                    if (earlier != null && !earlier.equals(committable.f1())) {
                        conflictingCommits.incrementAndGet();
                    }
                }
            };
        }

        @Override
        public TypeSerializer<Tuple2<Long, List<Long>>> committableSerializer() {
            return Types.tuple(Types.LONG, Types.list(Types.LONG));
        }

        @Override
        public void cleanUpLeftovers(io.duraflow.api.sink.SinkContext context,
                List<Tuple2<Long, List<Long>>> restoredCommittables, java.util.Set<String> restoredJobIds) {
            cleanups.add(restoredJobIds);
        }

        @Override
        public String description() {
            return "recording two-phase sink";
        }
    }

    @Test
    void aSinkCommitsWhenItsCheckpointCompletesAndARestoreReadsTheRestoredSplitAndCommitsEveryRecordOnce()
            throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        AttemptId first = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1).setAttempt(first)
                .putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(first, task);
        // Both mails are put on the task thread while it asks for its first split, so they run one
        // after the other: the split is in the reader, not yet read, when checkpoint 1 is taken.
        cluster.onSplitRequest = attempt -> {
            if (attempt.equals(first) && cluster.splitRequests.size() == 1) {
                deliverSplit(tasks, first, 0, RECORDS);
                trigger(tasks, first, 1);
            }
        };
        cluster.start(task);
        AcknowledgeCheckpointRequest checkpoint1 = awaitAcks(1, 1).get(first);
        assertThat(committed).as("nothing commits before its checkpoint completed").isEmpty();
        task.notifyCheckpoint(completed(first, 1));
        await().atMost(Duration.ofSeconds(30)).until(() -> committed.containsKey(1L));
        trigger(tasks, first, 2);
        awaitAcks(2, 1);
        // Checkpoint 2 never completes: the task fails, the next attempt restores checkpoint 1, the
        // latest completed one, whose state holds the whole split, not yet read.
        task.cancel();
        cluster.joinAll();
        assertThat(committed).doesNotContainKey(2L);
        assertThat(committed.get(1L)).isEmpty();

        // Restored under another job id, as from a savepoint: the sink learns whose leftovers it may remove.
        AttemptId second = sourceAttempt(0, 1).toBuilder().setJobId("restoring-job").build();
        Task restored = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(second).putAllConfig(config).setRestore(TaskRestore.newBuilder().setCheckpointId(1)
                        .setState(checkpoint1.getState())).build(), job.get(), cluster, StreamTask::new);
        cluster.start(restored);
        // The enumerator has no split left to give (it assigned it before checkpoint 1): the reader
        // reads the one restored from its state.
        awaitSplitRequests(second, 1);
        deliver(Map.of(second, restored), second, noMoreSplits());
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.contains(second));
        trigger(Map.of(second, restored), second, 3);
        awaitAcks(3, 1);
        restored.notifyCheckpoint(completed(second, 3));
        cluster.joinAll();
        assertThat(cluster.reports.get(cluster.reports.size() - 1).getState()).isEqualTo(TaskState.FINISHED);

        assertThat(conflictingCommits).hasValue(0);
        assertThat(cleanups).as("the restored job lineage at each start, then the lineage at the end")
                .containsExactly(java.util.Set.of(), java.util.Set.of("job"), java.util.Set.of("job", "restoring-job"));
        assertThat(committed).doesNotContainKey(2L).containsKey(3L);
        List<Long> all = new ArrayList<>();
        committed.values().forEach(all::addAll);
        assertThat(all).hasSize((int) RECORDS).doesNotHaveDuplicates();
        assertThat(all.stream().mapToLong(Long::longValue).sum()).isEqualTo(RECORDS * (RECORDS - 1) / 2);
    }

    @Test
    void anAbortedCheckpointIsNeitherAcknowledgedNorLeavesFilesAndTheNextOneIs() throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Path checkpoints = dir.resolve("checkpoints");
        // Inline nothing: every piece of state is a file, so a leftover file would show.
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", checkpoints.toString(),
                "state.storage.inline-threshold", "0 b");
        List<Runnable> asyncParts = new CopyOnWriteArrayList<>();
        cluster.snapshotExecutor = asyncParts::add;
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);
        cluster.start(task);
        awaitSplitRequests(attempt, 1);
        deliverSplit(tasks, attempt, 0, RECORDS);
        trigger(tasks, attempt, 1);
        task.notifyCheckpoint(CheckpointNotification.newBuilder().setJmSessionId("session").setAttempt(attempt)
                .setCheckpointId(1).setCompleted(false).build());
        trigger(tasks, attempt, 2);
        // Mails run in order: once checkpoint 2's part is queued, the abort of checkpoint 1 was handled.
        await().atMost(Duration.ofSeconds(30)).until(() -> asyncParts.size() == 2);
        asyncParts.forEach(Runnable::run);

        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(2));
        assertThat(cluster.declines).isEmpty();
        try (var files = java.nio.file.Files.walk(checkpoints)) {
            List<String> written = files.filter(java.nio.file.Files::isRegularFile)
                    .map(file -> checkpoints.relativize(file).toString()).toList();
            assertThat(written).isNotEmpty().allSatisfy(file -> assertThat(file).doesNotContain("chk-1"));
        }
        task.cancel();
        cluster.joinAll();
    }

    /**
     * Triggers reach a task over separate RPCs, so a periodic checkpoint and the final one
     * triggered a millisecond apart can arrive newest first (seen in StreamingCheckpointsIT). The
     * older one is declined as subsumed, which fails nothing; before, its snapshot reached the
     * sink after the newer one's, the sink refused it and the decline failed the job over.
     */
    @Test
    void aTriggerThatArrivesAfterANewerOneIsDeclinedAsSubsumedAndTheNewerOneIsAcknowledged() throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        List<Runnable> asyncParts = new CopyOnWriteArrayList<>();
        cluster.snapshotExecutor = asyncParts::add;
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);
        cluster.start(task);
        awaitSplitRequests(attempt, 1);
        deliverSplit(tasks, attempt, 0, RECORDS);
        trigger(tasks, attempt, 6);
        trigger(tasks, attempt, 5);
        await().atMost(Duration.ofSeconds(30)).until(() -> asyncParts.size() == 1 && cluster.declines.size() == 1);
        asyncParts.forEach(Runnable::run);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.acks.size() == 1);

        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(6));
        assertThat(cluster.declines).singleElement().satisfies(decline -> {
            assertThat(decline.getCheckpointId()).isEqualTo(5);
            assertThat(decline.getFailure().getReason()).isEqualTo("SUBSUMED");
            assertThat(decline.getFailure().getMessage()).contains("checkpoint 6 already");
        });
        task.cancel();
        cluster.joinAll();
    }

    @Test
    void aRateLimitedSourceWaitsOnItsReadersAvailabilityAndItsBoundedInputEndsAfterTheFinalCheckpoint()
            throws Exception {
        long records = 3_000;
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("generated");
            builder.fromSource("generate", io.duraflow.api.connectors.DataGeneratorSource.of("longs", Types.LONG,
                    i -> i).withCount(records).withRate(30_000)).uid("generate").collect("longs");
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putConfig(INTERVAL, "1h").putConfig("execution.checkpointing.dir", dir.resolve("checkpoints").toString())
                .build(), job.get(), cluster, StreamTask::new);
        byte[] split = io.duraflow.api.connectors.StrideSplit.SERIALIZER.toBytes(
                new io.duraflow.api.connectors.StrideSplit(0, 0, 1, records));
        task.deliver(OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder()
                .addSplits(ByteString.copyFrom(split))).build());
        task.deliver(noMoreSplits());
        cluster.start(task);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.contains(attempt));
        assertThat(cluster.finalStates()).as("waits for a checkpoint after its end").isEmpty();
        trigger(Map.of(attempt, task), attempt, 1);
        awaitAcks(1, 1);
        task.notifyCheckpoint(completed(attempt, 1));
        cluster.joinAll();

        TaskStateUpdate finished = cluster.reports.get(cluster.reports.size() - 1);
        assertThat(finished.getState()).isEqualTo(TaskState.FINISHED);
        List<Long> collected = new ArrayList<>();
        DataReader in = new DataReader(finished.getCollected(0).getData().toByteArray());
        while (in.hasRemaining()) {
            collected.add(Types.LONG.read(new DataReader(in.readBytes(in.readVarInt()))));
        }
        assertThat(collected).hasSize((int) records).doesNotHaveDuplicates();
        assertThat(collected.stream().mapToLong(Long::longValue).max()).hasValue(records - 1);
    }

    /**
     * Generated longs whose readers say "not now" (soft) to checkpoint 1 and "this is wrong"
     * (hard) to checkpoint 2, and take every later one: seed 002's source that declines.
     */
    static final class DecliningSource implements io.duraflow.api.source.Source<Long,
            io.duraflow.api.connectors.StrideSplit> {
        private final io.duraflow.api.connectors.DataGeneratorSource<Long> generator;

        DecliningSource(long records) {
            this.generator = io.duraflow.api.connectors.DataGeneratorSource.of("longs", Types.LONG, i -> i)
                    .withCount(records).withRate(10_000);
        }

        @Override
        public io.duraflow.api.source.SplitEnumerator<io.duraflow.api.connectors.StrideSplit> createEnumerator(
                io.duraflow.api.source.SplitEnumeratorContext<io.duraflow.api.connectors.StrideSplit> context) {
            return generator.createEnumerator(context);
        }

        @Override
        public io.duraflow.api.source.SplitEnumerator<io.duraflow.api.connectors.StrideSplit> restoreEnumerator(
                io.duraflow.api.source.SplitEnumeratorContext<io.duraflow.api.connectors.StrideSplit> context,
                byte[] state) {
            return generator.restoreEnumerator(context, state);
        }

        @Override
        public io.duraflow.api.source.SourceReader<Long, io.duraflow.api.connectors.StrideSplit> createReader(
                io.duraflow.api.source.SourceReaderContext context) {
            io.duraflow.api.source.SourceReader<Long, io.duraflow.api.connectors.StrideSplit> reader =
                    generator.createReader(context);
            return new io.duraflow.api.source.SourceReader<>() {
                @Override
                public void start() {
                    reader.start();
                }

                @Override
                public io.duraflow.api.source.InputStatus pollNext(io.duraflow.api.source.ReaderOutput<Long> output)
                        throws Exception {
                    return reader.pollNext(output);
                }

                @Override
                public void addSplits(List<io.duraflow.api.connectors.StrideSplit> splits) {
                    reader.addSplits(splits);
                }

                @Override
                public void notifyNoMoreSplits() {
                    reader.notifyNoMoreSplits();
                }

                @Override
                public List<io.duraflow.api.connectors.StrideSplit> snapshotState(long checkpointId) throws Exception {
                    return reader.snapshotState(checkpointId);
                }

                @Override
                public java.util.concurrent.CompletionStage<Void> isAvailable() {
                    return reader.isAvailable();
                }

                @Override
                public io.duraflow.api.checkpoint.SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                    if (checkpointId == 1) {
                        return io.duraflow.api.checkpoint.SnapshotAvailability.softFailure("in the middle of a chunk");
                    }
                    if (checkpointId == 2) {
                        return io.duraflow.api.checkpoint.SnapshotAvailability.hardFailure("position lost");
                    }
                    return io.duraflow.api.checkpoint.SnapshotAvailability.available();
                }
            };
        }

        @Override
        public io.duraflow.api.source.SplitSerializer<io.duraflow.api.connectors.StrideSplit> splitSerializer() {
            return generator.splitSerializer();
        }

        @Override
        public TypeSerializer<Long> producedType() {
            return Types.LONG;
        }

        @Override
        public String description() {
            return "declining(" + generator.description() + ")";
        }
    }

    @Test
    void aSourceThatCannotSnapshotDeclinesSoftOrHardWithItsMessageAndWritesNothing() throws Exception {
        long records = 1_000_000;
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("declining");
            builder.fromSource("generate", new DecliningSource(records)).uid("generate").collect("longs");
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        AttemptId attempt = sourceAttempt(0, 0);
        java.nio.file.Path checkpoints = dir.resolve("checkpoints");
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putConfig(INTERVAL, "1h").putConfig("execution.checkpointing.dir", checkpoints.toString())
                .build(), job.get(), cluster, StreamTask::new);
        task.deliver(OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder().addSplits(ByteString.copyFrom(
                io.duraflow.api.connectors.StrideSplit.SERIALIZER.toBytes(
                        new io.duraflow.api.connectors.StrideSplit(0, 0, 1, records))))).build());
        cluster.start(task);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);

        trigger(tasks, attempt, 1);
        trigger(tasks, attempt, 2);
        trigger(tasks, attempt, 3);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.declines.size() == 2 && !cluster.acks.isEmpty());

        assertThat(cluster.declines).extracting(d -> d.getCheckpointId() + " " + d.getFailure().getReason() + ": "
                + d.getFailure().getMessage()).containsExactly("1 SNAPSHOT_UNAVAILABLE_SOFT: in the middle of a chunk",
                        "2 SNAPSHOT_UNAVAILABLE_HARD: position lost");
        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(3));
        // A small state is acknowledged inline: maybe nothing was written at all, and nothing for 1 or 2.
        if (java.nio.file.Files.exists(checkpoints)) {
            try (var files = java.nio.file.Files.walk(checkpoints)) {
                assertThat(files.map(checkpoints::relativize).map(Object::toString))
                        .noneMatch(path -> path.contains("chk-1") || path.contains("chk-2"));
            }
        }
        task.cancel();
        cluster.joinAll();
    }

    // ------------------------------------------------------------ the test as JobManager

    private io.duraflow.api.dag.PlanNode collectNode() {
        return sums.nodes().get(sums.nodes().size() - 1);
    }

    private AttemptId sourceAttempt(int subtask, int attempt) {
        return AttemptId.newBuilder().setJobId("job").setVertex(sources.id()).setSubtask(subtask).setAttempt(attempt)
                .build();
    }

    private AttemptId sumAttempt(int subtask, int attempt) {
        return AttemptId.newBuilder().setJobId("job").setVertex(sums.id()).setSubtask(subtask).setAttempt(attempt)
                .build();
    }

    private static String partitionId(int subtask, int attempt) {
        return "source-" + subtask + "-attempt-" + attempt;
    }

    /** Starts the two sources and the two keyed tasks of one attempt, each on its own thread. */
    private Map<AttemptId, Task> deployAll(int attempt, Map<AttemptId, TaskRestore> restores) {
        ExchangeEdge edge = graph.edges().get(0);
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", dir.resolve("checkpoints").toString(),
                "execution.max-parallelism", "128");
        Map<AttemptId, Task> tasks = new HashMap<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            TaskDeployment.Builder source = TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(2)
                    .setAttempt(sourceAttempt(subtask, attempt)).putAllConfig(config)
                    .addOutputs(OutputSpec.newBuilder().setEdgeId(edge.id())
                            .setPartitionId(partitionId(subtask, attempt)).setSubpartitions(2));
            TaskDeployment.Builder sum = TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(2)
                    .setAttempt(sumAttempt(subtask, attempt)).putAllConfig(config)
                    .addInputs(InputGate.newBuilder().setEdgeId(edge.id()).setSubpartitionFrom(subtask)
                            .setSubpartitionTo(subtask + 1)
                            .addProducers(PartitionLocation.newBuilder().setPartitionId(partitionId(0, attempt))
                                    .setTmId(cluster.tmId).setTmAddress(cluster.address()))
                            .addProducers(PartitionLocation.newBuilder().setPartitionId(partitionId(1, attempt))
                                    .setTmId(cluster.tmId).setTmAddress(cluster.address())));
            for (TaskDeployment.Builder deployment : List.of(source, sum)) {
                TaskRestore restore = restores.get(deployment.getAttempt());
                if (restore != null) {
                    deployment.setRestore(restore);
                }
                Cluster taskManager = deployment == sum && remote != null ? remote : cluster;
                Task task = new Task(deployment.build(), build(), taskManager, StreamTask::new);
                tasks.put(deployment.getAttempt(), task);
            }
        }
        tasks.values().forEach(cluster::start);
        return tasks;
    }

    private void awaitSplitRequests(AttemptId attempt, int count) {
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.splitRequests.stream()
                .filter(attempt::equals).count() >= count);
    }

    private static void deliverSplit(Map<AttemptId, Task> tasks, AttemptId attempt, long from, long to) {
        byte[] split = RangeSplit.SERIALIZER.toBytes(new RangeSplit(from, to));
        deliver(tasks, attempt, OperatorEvent.newBuilder()
                .setAddSplits(AddSplits.newBuilder().addSplits(ByteString.copyFrom(split))).build());
    }

    private static OperatorEvent noMoreSplits() {
        return OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance()).build();
    }

    private static void deliver(Map<AttemptId, Task> tasks, AttemptId attempt, OperatorEvent event) {
        tasks.get(attempt).deliver(event);
    }

    private static void trigger(Map<AttemptId, Task> tasks, AttemptId attempt, long checkpointId) {
        tasks.get(attempt).triggerCheckpoint(TriggerCheckpointRequest.newBuilder().setJmSessionId("session")
                .setAttempt(attempt).setCheckpointId(checkpointId).setTimestampMs(1_000 * checkpointId)
                .setKind(CheckpointKind.CHECKPOINT_KIND_CHECKPOINT).build());
    }

    private static CheckpointNotification completed(AttemptId attempt, long checkpointId) {
        return CheckpointNotification.newBuilder().setJmSessionId("session").setAttempt(attempt)
                .setCheckpointId(checkpointId).setCompleted(true).build();
    }

    private Map<AttemptId, AcknowledgeCheckpointRequest> awaitAcks(long checkpointId, int tasks) {
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.acks.stream()
                .filter(ack -> ack.getCheckpointId() == checkpointId).count() == tasks || !cluster.declines.isEmpty());
        assertThat(cluster.declines).isEmpty();
        Map<AttemptId, AcknowledgeCheckpointRequest> acks = new HashMap<>();
        for (AcknowledgeCheckpointRequest ack : cluster.acks) {
            if (ack.getCheckpointId() == checkpointId) {
                assertThat(ack.getJmSessionId()).isEqualTo("session");
                acks.put(ack.getAttempt(), ack);
            }
        }
        return acks;
    }

    /** One TaskManager: a real network environment, snapshot pool and timers; the JobManager side recorded. */
    private final class Cluster implements TaskEnvironment, StreamEnvironment, AutoCloseable {
        final String tmId;
        /** Where this TaskManager's tasks' calls to the JobManager are recorded. */
        final Cluster jobManager;
        final NetworkEnvironment network;
        final io.grpc.Server server;
        final ExecutorService snapshotPool = Executors.newFixedThreadPool(2);
        /** Where asynchronous snapshot parts run; a test may queue them to run them itself. */
        volatile Executor snapshotExecutor = snapshotPool;
        final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        final List<AttemptId> splitRequests = new CopyOnWriteArrayList<>();
        final List<AcknowledgeCheckpointRequest> acks = new CopyOnWriteArrayList<>();
        final List<DeclineCheckpointRequest> declines = new CopyOnWriteArrayList<>();
        final List<AttemptId> inputEnds = new CopyOnWriteArrayList<>();
        final List<TaskStateUpdate> reports = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        Cluster(String tmId, Cluster recordInto) {
            this.tmId = tmId;
            this.jobManager = recordInto == null ? this : recordInto;
            this.network = new NetworkEnvironment(Configuration.fromMap(Map.of("taskmanager.network.memory", "16 mb")),
                    tmId, System::nanoTime);
            this.server = io.duraflow.rpc.RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port", network.service());
        }

        String address() {
            return "127.0.0.1:" + server.getPort();
        }

        /** Runs on the task thread when a split request is sent, before the task looks at its mails again. */
        volatile Consumer<AttemptId> onSplitRequest = attempt -> { };

        void start(Task task) {
            Thread thread = new Thread(task, "task " + task.attempt().getVertex() + "/" + task.attempt().getSubtask());
            threads.add(thread);
            thread.start();
        }

        void joinAll() throws InterruptedException {
            for (Thread thread : threads) {
                thread.join(30_000);
                assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
            }
            threads.clear();
        }

        List<TaskState> finalStates() {
            return reports.stream().map(TaskStateUpdate::getState).filter(state -> state != TaskState.RUNNING).toList();
        }

        @Override
        public String taskManagerId() {
            return tmId;
        }

        @Override
        public OperatorChain.Settings settings() {
            return new OperatorChain.Settings(1 << 20, 64 << 20, dir);
        }

        @Override
        public ResultPartitionWriter createPartition(String jobId, String partitionId, int subpartitions) {
            throw new UnsupportedOperationException("streaming tasks write pipelined partitions");
        }

        @Override
        public void publish(String jobId, String partitionId) {
            throw new UnsupportedOperationException("streaming tasks publish nothing");
        }

        @Override
        public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) {
            throw new UnsupportedOperationException("streaming tasks fetch nothing");
        }

        @Override
        public void sendOperatorEvent(OperatorEventFromTask event) {
            splitRequests.add(event.getAttempt());
            onSplitRequest.accept(event.getAttempt());
        }

        @Override
        public void releaseSlot(AttemptId attempt) {}

        @Override
        public void reportState(TaskStateUpdate update) {
            jobManager.reports.add(update);
        }

        @Override
        public StreamEnvironment streaming() {
            return this;
        }

        @Override
        public PipelinedResultPartition createPipelinedPartition(String partitionId, int subpartitions) {
            return network.createPartition(partitionId, subpartitions);
        }

        @Override
        public PipelinedInputGate createInputGate(String consumer, List<NetworkEnvironment.ChannelLocation> channels) {
            return network.createInputGate(consumer, channels);
        }

        @Override
        public java.nio.file.Path localStateDirectory() {
            return dir.resolve("state");
        }

        @Override
        public io.duraflow.state.filemerging.FileMergingManagers fileMerging() {
            return fileMerging;
        }

        private final io.duraflow.state.filemerging.FileMergingManagers fileMerging =
                new io.duraflow.state.filemerging.FileMergingManagers("tm-test", Runnable::run);

        @Override
        public Executor snapshotPool() {
            return snapshotExecutor;
        }

        @Override
        public ScheduledExecutorService timers() {
            return timers;
        }

        @Override
        public long currentTimeMs() {
            return System.currentTimeMillis();
        }

        @Override
        public CompletableFuture<Void> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
            jobManager.acks.add(request);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> declineCheckpoint(DeclineCheckpointRequest request) {
            jobManager.declines.add(request);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> reportInputEnded(TaskInputEnded report) {
            jobManager.inputEnds.add(report.getAttempt());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
            server.shutdownNow();
            network.close();
            snapshotPool.shutdownNow();
            timers.shutdownNow();
        }
    }
}

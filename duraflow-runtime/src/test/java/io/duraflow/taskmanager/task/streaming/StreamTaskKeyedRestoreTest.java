package io.duraflow.taskmanager.task.streaming;

import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.INTERVAL;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.completed;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliver;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliverSplit;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.noMoreSplits;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.trigger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.JobBuilder;
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
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskRestore;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.taskmanager.task.Task;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyed job restored from an acknowledged checkpoint continues exactly once and ends with a
 * final checkpoint. Streaming tasks of one job connected by pipelined channels, with the test
 * acting as the JobManager (see {@link StreamTaskCluster}): it answers split requests, triggers
 * checkpoints, collects the acknowledgements and notifies. Job: two sources of longs ->
 * keyBy(value % 10) -> running sum per key (a value state) -> collect, parallelism 2 (each keyed
 * task aligns barriers of two channels), the keyed tasks on the sources' TaskManager or on another.
 */
@Timeout(120)
class StreamTaskKeyedRestoreTest {
    private static final long RECORDS = 20_000;
    private static final long KEYS = 10;
    private static final long HALF = RECORDS / 2;
    private static final TypeSerializer<Tuple2<Long, Long>> SUM_TYPE = Types.tuple(Types.LONG, Types.LONG);

    @TempDir
    Path dir;

    /** The TaskManager of every task, and where the test records what tasks tell the JobManager. */
    private StreamTaskCluster cluster;
    /** A second TaskManager on loopback for the keyed tasks of the remote variant; null otherwise. */
    private StreamTaskCluster remote;
    private JobGraph graph;
    private JobVertex sources;
    private JobVertex sums;

    @BeforeEach
    void start() {
        cluster = new StreamTaskCluster("tm-test", null, dir);
    }

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
            remote = new StreamTaskCluster("tm-remote", cluster, dir);
        }
        compile();
        // ---- attempt 0: half of the input, checkpoint 1, the other half, then a "failure".
        Map<AttemptId, Task> first = deployAll(0, Map.of());
        for (int s = 0; s < 2; s++) {
            cluster.awaitSplitRequests(sourceAttempt(s, 0), 1);
            deliverSplit(first, sourceAttempt(s, 0), s * HALF, s * HALF + HALF / 2);
        }
        for (int s = 0; s < 2; s++) {
            cluster.awaitSplitRequests(sourceAttempt(s, 0), 2); // the sources read their first quarter and wait
        }
        trigger(first, sourceAttempt(0, 0), 1);
        trigger(first, sourceAttempt(1, 0), 1);
        Map<AttemptId, AcknowledgeCheckpointRequest> checkpoint1 = cluster.awaitAcks(1, 4);
        for (int k = 0; k < 2; k++) {
            TaskStateSnapshot state = StateHandleCodec.fromProto(checkpoint1.get(sumAttempt(k, 0)).getState());
            assertThat(state.operators().get("running-sum").keyedState()).as("keyed state of sum task " + k)
                    .isNotEmpty();
            assertThat(state.operators().get(graph.uid(collectNode())).operatorState()).isNotEmpty();
        }
        for (int s = 0; s < 2; s++) {
            deliverSplit(first, sourceAttempt(s, 0), s * HALF + HALF / 2, s * HALF + HALF);
            cluster.awaitSplitRequests(sourceAttempt(s, 0), 3);
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
            cluster.awaitSplitRequests(sourceAttempt(s, 1), 1);
            deliverSplit(second, sourceAttempt(s, 1), s * HALF + HALF / 2, s * HALF + HALF);
            cluster.awaitSplitRequests(sourceAttempt(s, 1), 2);
            deliver(second, sourceAttempt(s, 1), noMoreSplits());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.size() == 2);
        assertThat(cluster.finalStates()).as("no task finishes before a checkpoint after its end completed").isEmpty();
        trigger(second, sourceAttempt(0, 1), 2);
        trigger(second, sourceAttempt(1, 1), 2);
        cluster.awaitAcks(2, 4);
        // The JobManager may trigger the keyed tasks once it saw the sources finish, before the
        // keyed tasks read the end of their input: they take that checkpoint when the end arrived.
        trigger(second, sumAttempt(0, 1), 3);
        trigger(second, sumAttempt(1, 1), 3);
        for (Task task : second.values()) {
            task.notifyCheckpoint(completed(task.attempt(), 2));
        }
        // The sources end their partitions; the keyed tasks' input ends, and they take checkpoint 3.
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.size() == 4);
        cluster.awaitAcks(3, 2);
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

    // ------------------------------------------------------------ deployments of the keyed job

    private io.duraflow.api.dag.PlanNode collectNode() {
        return sums.nodes().get(sums.nodes().size() - 1);
    }

    private AttemptId sourceAttempt(int subtask, int attempt) {
        return StreamTaskCluster.attempt(sources, subtask, attempt);
    }

    private AttemptId sumAttempt(int subtask, int attempt) {
        return StreamTaskCluster.attempt(sums, subtask, attempt);
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
                StreamTaskCluster taskManager = deployment == sum && remote != null ? remote : cluster;
                Task task = new Task(deployment.build(), build(), taskManager, StreamTask::new);
                tasks.put(deployment.getAttempt(), task);
            }
        }
        tasks.values().forEach(cluster::start);
        return tasks;
    }
}

package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.sink.TwoPhaseCommittingSink;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.ExchangeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.storage.CheckpointStreamFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.ExchangeOutputs;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.SideOutputs;
import io.duraflow.taskmanager.task.StreamOperator;
import io.duraflow.taskmanager.task.TaskCounters;

/**
 * The operators of one streaming task: the shared back-to-front wiring of {@link OperatorChain}
 * with pipelined outputs and the streaming operators of {@link StreamOperators}. Every operator that
 * keeps state gets an {@link OperatorStateHolder} under its uid, restored from the task's part of
 * a checkpoint; {@link #snapshot} takes the synchronous part of every one of them. Task thread only.
 */
final class StreamOperatorChain implements AutoCloseable {
    /** Who this chain runs as, for routing and key groups. */
    record Subtask(int index, int parallelism, int maxParallelism) {}

    private final JobGraph graph;
    private final Subtask subtask;
    private final TaskCounters counters;
    private final ProcessingTimeService time;
    private final OperatorChain operators;
    /** The stateful operators in chain order, with their uids and key types (null: not keyed). */
    private final Map<StreamOperator, PlanNode> statefulNodes = new LinkedHashMap<>();
    private final Map<StreamOperator, TypeSerializer<Object>> keyTypes = new IdentityHashMap<>();
    private final Map<StreamOperator, OperatorStateHolder> holders = new IdentityHashMap<>();
    final List<StreamOperators.Collect> collects = new ArrayList<>();
    private final List<StreamOperators.CommittingSink> committingSinks = new ArrayList<>();
    private StreamOperators.SourceOperator source;
    /** The timestamp of the record in flight (event time; see {@link RecordTime}). */
    final RecordTime recordTime = new RecordTime();
    private final long autoWatermarkIntervalMs;

    StreamOperatorChain(JobGraph graph, JobVertex vertex, Map<Integer, PipelinedResultPartition> partitionsByEdge,
            SinkContext sinkContext, OperatorChain.Settings settings, TaskCounters counters,
            ProcessingTimeService time, Subtask subtask, long autoWatermarkIntervalMs) throws Exception {
        this.graph = graph;
        this.autoWatermarkIntervalMs = autoWatermarkIntervalMs;
        this.subtask = subtask;
        this.counters = counters;
        this.time = time;
        this.operators = new OperatorChain(graph, vertex);
        operators.build(new OperatorChain.Wiring() {
            @Override
            public Downstream exchange(ExchangeEdge edge) {
                return StreamOperatorChain.this.exchange(edge, partitionsByEdge.get(edge.id()));
            }

            @Override
            public Downstream chained(PlanNode node, Downstream out) throws Exception {
                return StreamOperatorChain.this.chained(node, out, sinkContext, settings);
            }

            @Override
            public StreamOperator head(PlanNode node, Downstream out, SideOutputs sideOutputs) {
                return StreamOperatorChain.this.head(node, out, sideOutputs);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private Downstream chained(PlanNode node, Downstream out, SinkContext sinkContext, OperatorChain.Settings settings)
            throws Exception {
        Operation operation = node.operation();
        if (operation instanceof Operation.MapOp op) {
            return ChainedOperators.map(op.function(), out);
        } else if (operation instanceof Operation.FlatMapOp op) {
            return ChainedOperators.flatMap(op.function(), out);
        } else if (operation instanceof Operation.FilterOp op) {
            return ChainedOperators.filter(op.function(), out);
        } else if (operation instanceof Operation.SideOutputOp) {
            return ChainedOperators.passThrough(out); // its input pushes the tag's records only
        } else if (operation instanceof Operation.TimestampsAndWatermarksOp op) {
            return new TimestampsAndWatermarksOperator(op.strategy(), out, recordTime, time, autoWatermarkIntervalMs);
        } else if (operation instanceof Operation.SinkOp op) {
            if (op.sink() instanceof TwoPhaseCommittingSink<?, ?> committing) {
                var sink = new StreamOperators.CommittingSink((TwoPhaseCommittingSink<Object, Object>) committing,
                        sinkContext, counters);
                statefulNodes.put(sink, node);
                committingSinks.add(sink);
                return sink;
            }
            SinkWriter<Object> writer = op.sink().createWriter(sinkContext);
            return ChainedOperators.sink(writer, counters);
        } else if (operation instanceof Operation.CollectOp) {
            var collect = new StreamOperators.Collect(new ChainedOperators.CollectOperator(node.name(),
                    (TypeSerializer<Object>) node.inputs().get(0).outputType(), settings.collectMaxBytes(), counters));
            collects.add(collect);
            statefulNodes.put(collect, node);
            return collect;
        }
        throw StreamOperators.unsupported("operator " + node);
    }

    @SuppressWarnings("unchecked")
    private StreamOperator head(PlanNode node, Downstream out, SideOutputs sideOutputs) {
        Operation operation = node.operation();
        if (operation instanceof Operation.KeyedProcessOp op) {
            HeadOperator head = new KeyedProcessOperator(op, out, sideOutputs, time, recordTime);
            statefulNodes.put(head, node);
            keyTypes.put(head, op.keyType());
            return head;
        }
        if (!sideOutputs.isEmpty()) {
            throw new IllegalStateException("operator " + node + " cannot emit side outputs; the plan refuses reading them");
        }
        if (operation instanceof Operation.SourceOp op) {
            source = new StreamOperators.SourceOperator(
                    (SplitSerializer<SourceSplit>) (SplitSerializer<?>) op.source().splitSerializer());
            statefulNodes.put(source, node);
            return source;
        } else if (operation instanceof Operation.RebalanceOp || operation instanceof Operation.UnionOp) {
            return HeadOperator.passThrough(out);
        } else if (operation instanceof Operation.KeyedProcessOp op) {
            HeadOperator head = new KeyedProcessOperator(op, out, sideOutputs, time, recordTime);
            statefulNodes.put(head, node);
            keyTypes.put(head, op.keyType());
            return head;
        } else if (operation instanceof Operation.KeyedCoProcessOp op) {
            HeadOperator head = new KeyedCoProcessOperator(op, out, sideOutputs, time, recordTime);
            statefulNodes.put(head, node);
            keyTypes.put(head, op.keyType());
            return head;
        } else if (operation instanceof Operation.KeyedAggregateOp op) {
            HeadOperator head = new StreamOperators.RollingAggregate(op.keySelector(), op.aggregation(),
                    op.accumulatorType(), out);
            statefulNodes.put(head, node);
            keyTypes.put(head, op.keyType());
            return head;
        }
        throw StreamOperators.unsupported("operator " + node);
    }

    @SuppressWarnings("unchecked")
    private Downstream exchange(ExchangeEdge edge, PipelinedResultPartition partition) {
        if (edge.mode() != ExchangeMode.PIPELINED) {
            throw new IllegalStateException("edge " + edge.id() + " of a streaming job is " + edge.mode()
                    + "; streaming jobs exchange records pipelined");
        }
        if (partition == null) {
            throw new IllegalStateException("the deployment has no output partition for edge " + edge.id());
        }
        return StreamOperators.pipelinedExchange(records(edge, partition), partition);
    }

    /** What writes an edge's records into its partition, by the edge's shipping strategy. */
    @SuppressWarnings("unchecked")
    private Downstream records(ExchangeEdge edge, PipelinedResultPartition partition) {
        TypeSerializer<Object> recordType = (TypeSerializer<Object>) edge.producerNode().outputType();
        if (graph.eventTime()) {
            recordType = recordTime.writerOf(recordType);
        }
        int subpartitions = partition.subpartitionCount();
        return switch (edge.strategy()) {
            case REBALANCE -> ExchangeOutputs.rebalance(recordType, partition, subpartitions, subtask.index(), counters);
            case FORWARD -> ExchangeOutputs.forward(recordType, partition, subtask.index(), counters);
            case BROADCAST -> ExchangeOutputs.broadcast(recordType, partition, counters);
            case HASH -> {
                Operation consumer = edge.consumerNode().operation();
                if (consumer instanceof Operation.KeyedProcessOp op) {
                    yield StreamOperators.keyGroupHash(op.keySelector(), op.keyType(), recordType, partition,
                            subtask.maxParallelism(), counters);
                } else if (consumer instanceof Operation.KeyedAggregateOp op) {
                    yield StreamOperators.keyGroupHash(op.keySelector(), op.keyType(), recordType, partition,
                            subtask.maxParallelism(), counters);
                } else if (consumer instanceof Operation.KeyedCoProcessOp op) {
                    // Each input by its own key selector into the key groups of the one key type.
                    yield StreamOperators.keyGroupHash(op.keySelector(edge.inputIndex()), op.keyType(), recordType,
                            partition, subtask.maxParallelism(), counters);
                }
                throw StreamOperators.unsupported("a hash exchange into " + edge.consumerNode());
            }
        };
    }

    HeadOperator head() {
        return operators.head();
    }

    Downstream sourceOutput() {
        return operators.sourceOutput();
    }

    StreamOperators.SourceOperator source() {
        return source;
    }

    /**
     * Makes every stateful operator's backends from {@code restored} (the task's part of
     * checkpoint {@code restoredCheckpointId}, or empty with -1), then initializes and opens
     * the operators.
     */
    void open(StreamOperator.OperatorContext context, StateBackend backend, TaskStateSnapshot restored,
            long restoredCheckpointId, java.nio.file.Path localDirectory) throws Exception {
        for (Map.Entry<StreamOperator, PlanNode> entry : statefulNodes.entrySet()) {
            String uid = graph.uid(entry.getValue());
            String description = entry.getValue().name() + " (uid " + uid + ") " + (subtask.index() + 1) + "/"
                    + subtask.parallelism();
            TypeSerializer<Object> keyType = keyTypes.get(entry.getKey());
            OperatorStateHolder.Keyed keyed = keyType == null ? null : new OperatorStateHolder.Keyed(keyType,
                    subtask.maxParallelism(), KeyGroupRange.ofOperatorIndex(subtask.maxParallelism(),
                            subtask.parallelism(), subtask.index()), localDirectory.resolve("op-" + uid));
            holders.put(entry.getKey(), OperatorStateHolder.create(backend, uid, description,
                    restored.operators().getOrDefault(uid, OperatorSubtaskState.EMPTY), restoredCheckpointId, keyed));
        }
        operators.open(context, operator -> {
            OperatorStateHolder holder = holders.get(operator);
            return holder == null ? StreamOperator.StateInitializationContext.EMPTY : holder.initializationContext();
        });
    }

    /**
     * The synchronous part of checkpoint {@code checkpointId}: every operator puts what it keeps
     * outside its backends into them, then every holder freezes its state. The futures (by uid)
     * write it; if this throws, the futures made so far are cancelled.
     */
    Map<String, RunnableFuture<OperatorSubtaskState>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streams, io.duraflow.state.backend.SnapshotType type) throws Exception {
        Map<String, RunnableFuture<OperatorSubtaskState>> futures = new LinkedHashMap<>();
        try {
            for (StreamOperator operator : operators.operatorsBackToFront()) {
                operator.snapshotState(checkpointId);
            }
            for (OperatorStateHolder holder : holders.values()) {
                futures.put(holder.uid(), holder.snapshot(checkpointId, timestamp, streams, type));
            }
        } catch (Exception | Error e) {
            futures.values().forEach(future -> future.cancel(true));
            throw e;
        }
        return futures;
    }

    /**
     * Asks every operator whether it can take its part of checkpoint {@code checkpointId} now
     * (every one, head first, so each sees every checkpoint); the strongest answer wins ({@link
     * SnapshotAvailabilities}): one operator's soft failure never hides another's hard one.
     *
     * @return available, or the strongest failure naming every operator's refusal
     */
    io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) throws Exception {
        List<io.duraflow.api.checkpoint.SnapshotAvailability> answers = new ArrayList<>();
        List<StreamOperator> backToFront = operators.operatorsBackToFront();
        for (int i = backToFront.size() - 1; i >= 0; i--) {
            io.duraflow.api.checkpoint.SnapshotAvailability answer =
                    backToFront.get(i).snapshotAvailability(checkpointId);
            if (answer == null) {
                throw new IllegalStateException("an operator answered null to isSnapshotAvailable(" + checkpointId
                        + "); return SnapshotAvailability.available() instead");
            }
            answers.add(answer);
        }
        return SnapshotAvailabilities.strongest(answers);
    }

    void notifyCheckpointComplete(long checkpointId) throws Exception {
        for (StreamOperator operator : operators.operatorsBackToFront()) {
            operator.notifyCheckpointComplete(checkpointId);
        }
        holders.values().forEach(holder -> holder.notifyCheckpointComplete(checkpointId));
    }

    void notifyCheckpointAborted(long checkpointId) throws Exception {
        for (StreamOperator operator : operators.operatorsBackToFront()) {
            operator.notifyCheckpointAborted(checkpointId);
        }
        holders.values().forEach(holder -> holder.notifyCheckpointAborted(checkpointId));
    }

    /** All input has been pushed: ends it front to back (see {@link ChainLifecycle#endInput()}). */
    void endInput() throws Exception {
        operators.endInput();
    }

    /**
     * The input ended (after {@link #endInput}) and the job takes no checkpoints: the sinks commit
     * what they wrote, as a checkpoint after the end would have them do.
     */
    void commitAtEndWithoutCheckpoints() throws Exception {
        for (StreamOperators.CommittingSink sink : committingSinks) {
            sink.commitAtEndWithoutCheckpoints();
        }
    }

    /** Closes every operator, then releases the state backends. Idempotent. */
    @Override
    public void close() throws Exception {
        try {
            operators.close();
        } finally {
            for (OperatorStateHolder holder : holders.values()) {
                holder.close();
            }
            holders.clear();
        }
    }
}

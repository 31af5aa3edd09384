package io.duraflow.taskmanager.task.batch;

import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.plan.ExchangeMode;
import io.duraflow.exchange.ResultPartitionWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.ExchangeOutputs;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.SideOutputs;
import io.duraflow.taskmanager.task.StreamOperator;
import io.duraflow.taskmanager.task.TaskCounters;

/**
 * The operators of one batch task: the shared back-to-front wiring of {@link OperatorChain} with
 * blocking exchanges (and combiners before aggregations), the batch aggregation and join heads,
 * plain sink writers and collects. Task thread only.
 */
final class BatchOperatorChain implements AutoCloseable {
    private final OperatorChain operators;
    private final Map<Integer, ResultPartitionWriter> writersByEdge;
    private final Map<Integer, Integer> subpartitionsByEdge;
    private final SinkContext sinkContext;
    private final OperatorChain.Settings settings;
    private final TaskCounters counters;
    private final List<SinkWriter<Object>> sinkWriters = new ArrayList<>();
    final List<ChainedOperators.CollectOperator> collects = new ArrayList<>();

    BatchOperatorChain(JobGraph graph, JobVertex vertex, Map<Integer, ResultPartitionWriter> writersByEdge,
            Map<Integer, Integer> subpartitionsByEdge, SinkContext sinkContext, OperatorChain.Settings settings,
            TaskCounters counters) throws Exception {
        this.writersByEdge = writersByEdge;
        this.subpartitionsByEdge = subpartitionsByEdge;
        this.sinkContext = sinkContext;
        this.settings = settings;
        this.counters = counters;
        this.operators = new OperatorChain(graph, vertex);
        try {
            operators.build(new BlockingWiring());
        } catch (Throwable e) {
            // The task never sees a chain that failed half built: release what the built part holds.
            abortSinks();
            try {
                close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** What a batch task makes of the vertex's edges and nodes. */
    private final class BlockingWiring implements OperatorChain.Wiring {
        @Override
        public Downstream exchange(ExchangeEdge edge) {
            return BatchOperatorChain.exchange(edge, writersByEdge.get(edge.id()), subpartitionsByEdge.get(edge.id()),
                    sinkContext.subtaskIndex(), settings, counters);
        }

        @Override
        public Downstream chained(PlanNode node, Downstream out) throws Exception {
            return BatchOperatorChain.this.chained(node, out);
        }

        @Override
        public StreamOperator head(PlanNode node, Downstream out, SideOutputs sideOutputs) {
            if (!sideOutputs.isEmpty()) {
                throw new IllegalStateException("operator " + node + " emits side outputs, which batch jobs do not"
                        + " run; the plan refuses them");
            }
            return BatchOperatorChain.this.head(node, out);
        }
    }

    @SuppressWarnings("unchecked")
    private Downstream chained(PlanNode node, Downstream out) throws Exception {
        Operation operation = node.operation();
        if (operation instanceof Operation.MapOp op) {
            return ChainedOperators.map(op.function(), out);
        } else if (operation instanceof Operation.FlatMapOp op) {
            return ChainedOperators.flatMap(op.function(), out);
        } else if (operation instanceof Operation.FilterOp op) {
            return ChainedOperators.filter(op.function(), out);
        } else if (operation instanceof Operation.TimestampsAndWatermarksOp) {
            return ChainedOperators.passThrough(out); // batch has no event time: records pass unchanged
        } else if (operation instanceof Operation.SinkOp op) {
            SinkWriter<Object> writer = op.sink().createWriter(sinkContext);
            sinkWriters.add(writer);
            return ChainedOperators.sink(writer, counters);
        } else if (operation instanceof Operation.CollectOp) {
            var collect = new ChainedOperators.CollectOperator(node.name(),
                    (TypeSerializer<Object>) node.inputs().get(0).outputType(), settings.collectMaxBytes(), counters);
            collects.add(collect);
            return collect;
        }
        throw new IllegalStateException("operator " + node + " cannot run chained");
    }

    /** The head's operator; none for a source, whose reader pushes into {@link #sourceOutput()}. */
    @SuppressWarnings("unchecked")
    private StreamOperator head(PlanNode node, Downstream out) {
        Operation operation = node.operation();
        if (operation instanceof Operation.SourceOp) {
            return null;
        } else if (operation instanceof Operation.RebalanceOp || operation instanceof Operation.UnionOp) {
            return HeadOperator.passThrough(out);
        } else if (operation instanceof Operation.KeyedAggregateOp op) {
            return new HeadOperators.Aggregate(op.keyType(), op.accumulatorType(), op.aggregation(),
                    settings.memoryBudgetBytes(), settings.spillDirectory(), out);
        } else if (operation instanceof Operation.JoinOp op) {
            return new HeadOperators.Join(op.leftKey(), op.rightKey(), op.keyType(),
                    (TypeSerializer<Object>) node.inputs().get(0).outputType(),
                    (TypeSerializer<Object>) node.inputs().get(1).outputType(), op.function(),
                    settings.memoryBudgetBytes(), settings.spillDirectory(), out);
        }
        throw new IllegalStateException("operator " + node + " cannot start a chain");
    }

    @SuppressWarnings("unchecked")
    private static Downstream exchange(ExchangeEdge edge, ResultPartitionWriter writer, int subpartitions,
            int subtaskIndex, OperatorChain.Settings settings, TaskCounters counters) {
        if (edge.mode() != ExchangeMode.BLOCKING) {
            throw new IllegalStateException("edge " + edge.id() + " is " + edge.mode()
                    + ": only blocking exchanges run so far");
        }
        TypeSerializer<Object> recordType = (TypeSerializer<Object>) edge.producerNode().outputType();
        return switch (edge.strategy()) {
            case REBALANCE -> ExchangeOutputs.rebalance(recordType, writer, subpartitions, subtaskIndex, counters);
            case FORWARD -> ExchangeOutputs.forward(recordType, writer, subtaskIndex, counters);
            case BROADCAST -> ExchangeOutputs.broadcast(recordType, writer, counters);
            case HASH -> hashExchange(edge, recordType, writer, subpartitions, settings, counters);
        };
    }

    private static Downstream hashExchange(ExchangeEdge edge, TypeSerializer<Object> recordType,
            ResultPartitionWriter writer, int subpartitions, OperatorChain.Settings settings, TaskCounters counters) {
        Operation consumer = edge.consumerNode().operation();
        if (consumer instanceof Operation.KeyedAggregateOp op) {
            if (edge.combine()) {
                return new BatchExchangeOutputs.Combiner(op.keySelector(), op.keyType(), op.accumulatorType(),
                        op.aggregation(), writer, subpartitions, settings.memoryBudgetBytes(), counters);
            }
            throw new IllegalStateException("edge " + edge.id() + " into " + edge.consumerNode()
                    + " has no combiner: the aggregation reads (key, partial) records, so plan compilation sets it");
        }
        if (consumer instanceof Operation.JoinOp op) {
            return BatchExchangeOutputs.hash(edge.inputIndex() == 0 ? op.leftKey() : op.rightKey(), op.keyType(),
                    recordType, writer, subpartitions, counters);
        }
        throw new IllegalStateException("no hash exchange into " + edge.consumerNode());
    }

    /** The type of the records on an edge: (key, accumulator) pairs after a combiner. */
    @SuppressWarnings("unchecked")
    static TypeSerializer<Object> wireType(ExchangeEdge edge) {
        if (edge.combine()) {
            Operation.KeyedAggregateOp op = (Operation.KeyedAggregateOp) edge.consumerNode().operation();
            return (TypeSerializer<Object>) (TypeSerializer<?>) Types.tuple(op.keyType(), op.accumulatorType());
        }
        return (TypeSerializer<Object>) edge.producerNode().outputType();
    }

    HeadOperator head() {
        return operators.head();
    }

    Downstream sourceOutput() {
        return operators.sourceOutput();
    }

    /** Initializes and opens every operator (see {@link StreamOperator} for the order). */
    void open(StreamOperator.OperatorContext context) throws Exception {
        operators.open(context, operator -> StreamOperator.StateInitializationContext.EMPTY);
    }

    /** All input has been pushed: end it front to back so each operator can emit its last records. */
    void endInput() throws Exception {
        operators.endInput();
    }

    void abortSinks() {
        for (SinkWriter<Object> writer : sinkWriters) {
            try {
                writer.abort();
            } catch (Exception ignored) {
                // best effort: the next attempt overwrites what is left
            }
        }
    }

    /** Closes every operator (sink writers included), also after a failure. Idempotent. */
    @Override
    public void close() throws Exception {
        operators.close();
    }
}

package io.duraflow.taskmanager.task;

import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.plan.ShipStrategy;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import io.duraflow.plan.ExchangeMode;
import io.duraflow.exchange.ResultPartitionWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators of one task, wired from the vertex's plan nodes. Built back to front: each
 * node's output goes to its chained consumers and to the exchanges that leave from it.
 */
public final class OperatorChain implements AutoCloseable {
    /** Settings a chain needs from its TaskManager. */
    public record Settings(long memoryBudgetBytes, long collectMaxBytes, Path spillDirectory) {}

    private final Map<Integer, Downstream> inputOfNode = new HashMap<>();
    /** Every operator in the order it was built: back to front, the head last. */
    private final List<StreamOperator> builtBackToFront = new ArrayList<>();
    private final ChainLifecycle lifecycle = new ChainLifecycle();
    private final List<SinkWriter<Object>> sinkWriters = new ArrayList<>();
    final List<ChainedOperators.CollectOperator> collects = new ArrayList<>();
    private HeadOperator head;
    private Downstream sourceOutput;

    OperatorChain(JobGraph graph, JobVertex vertex, Map<Integer, ResultPartitionWriter> writersByEdge,
            Map<Integer, Integer> subpartitionsByEdge, SinkContext sinkContext, Settings settings,
            TaskCounters counters) throws Exception {
        try {
            build(graph, vertex, writersByEdge, subpartitionsByEdge, sinkContext, settings, counters);
        } catch (Throwable e) {
            // The task never sees a chain that failed half built: release what the built part holds.
            registerBuiltOperators();
            abortSinks();
            try {
                close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        registerBuiltOperators();
    }

    private void registerBuiltOperators() {
        for (int i = builtBackToFront.size() - 1; i >= 0; i--) {
            lifecycle.add(builtBackToFront.get(i));
        }
    }

    @SuppressWarnings("unchecked")
    private void build(JobGraph graph, JobVertex vertex, Map<Integer, ResultPartitionWriter> writersByEdge,
            Map<Integer, Integer> subpartitionsByEdge, SinkContext sinkContext, Settings settings,
            TaskCounters counters) throws Exception {
        List<PlanNode> nodes = vertex.nodes();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            PlanNode node = nodes.get(i);
            List<Downstream> targets = new ArrayList<>();
            for (PlanNode consumer : graph.chainedConsumers(node)) {
                targets.add(inputOfNode.get(consumer.id()));
            }
            for (ExchangeEdge edge : graph.outgoingEdges(node)) {
                Downstream exchange = exchange(edge, writersByEdge.get(edge.id()), subpartitionsByEdge.get(edge.id()),
                        sinkContext.subtaskIndex(), settings, counters);
                targets.add(exchange);
                builtBackToFront.add(exchange);
            }
            Downstream out = targets.isEmpty() ? record -> {} : FanOut.of(targets);
            if (node == vertex.head()) {
                buildHead(node, out, settings);
                continue;
            }
            Downstream input = chained(node, out, sinkContext, settings, counters);
            inputOfNode.put(node.id(), input);
            builtBackToFront.add(input);
        }
    }

    @SuppressWarnings("unchecked")
    private Downstream chained(PlanNode node, Downstream out, SinkContext sinkContext, Settings settings,
            TaskCounters counters) throws Exception {
        Operation operation = node.operation();
        if (operation instanceof Operation.MapOp op) {
            return ChainedOperators.map(op.function(), out);
        } else if (operation instanceof Operation.FlatMapOp op) {
            return ChainedOperators.flatMap(op.function(), out);
        } else if (operation instanceof Operation.FilterOp op) {
            return ChainedOperators.filter(op.function(), out);
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

    @SuppressWarnings("unchecked")
    private void buildHead(PlanNode node, Downstream out, Settings settings) {
        Operation operation = node.operation();
        if (operation instanceof Operation.SourceOp) {
            sourceOutput = out;
        } else if (operation instanceof Operation.RebalanceOp) {
            head = HeadOperators.passThrough(out);
            builtBackToFront.add(head);
        } else if (operation instanceof Operation.KeyedAggregateOp op) {
            var aggregate = new HeadOperators.Aggregate(op.keyType(), op.accumulatorType(), op.aggregation(),
                    settings.memoryBudgetBytes(), settings.spillDirectory(), out);
            builtBackToFront.add(aggregate);
            head = aggregate;
        } else if (operation instanceof Operation.JoinOp op) {
            var join = new HeadOperators.Join(op.leftKey(), op.rightKey(), op.keyType(),
                    (TypeSerializer<Object>) node.inputs().get(0).outputType(),
                    (TypeSerializer<Object>) node.inputs().get(1).outputType(), op.function(),
                    settings.memoryBudgetBytes(), settings.spillDirectory(), out);
            builtBackToFront.add(join);
            head = join;
        } else {
            throw new IllegalStateException("operator " + node + " cannot start a chain");
        }
    }

    @SuppressWarnings("unchecked")
    private static Downstream exchange(ExchangeEdge edge, ResultPartitionWriter writer, int subpartitions,
            int subtaskIndex, Settings settings, TaskCounters counters) {
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
            ResultPartitionWriter writer, int subpartitions, Settings settings, TaskCounters counters) {
        Operation consumer = edge.consumerNode().operation();
        if (consumer instanceof Operation.KeyedAggregateOp op) {
            if (edge.combine()) {
                return new ExchangeOutputs.Combiner(op.keySelector(), op.keyType(), op.accumulatorType(),
                        op.aggregation(), writer, subpartitions, settings.memoryBudgetBytes(), counters);
            }
            throw new IllegalStateException("edge " + edge.id() + " into " + edge.consumerNode()
                    + " has no combiner: the aggregation reads (key, partial) records, so plan compilation sets it");
        }
        if (consumer instanceof Operation.JoinOp op) {
            return ExchangeOutputs.hash(edge.inputIndex() == 0 ? op.leftKey() : op.rightKey(), op.keyType(),
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
        return head;
    }

    Downstream sourceOutput() {
        return sourceOutput;
    }

    /** Initializes and opens every operator (see {@link StreamOperator} for the order). */
    void open(StreamOperator.OperatorContext context) throws Exception {
        lifecycle.open(context, operator -> StreamOperator.StateInitializationContext.EMPTY);
    }

    /** All input has been pushed: end it front to back so each operator can emit its last records. */
    void endInput() throws Exception {
        lifecycle.endInput();
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
        lifecycle.close();
    }
}

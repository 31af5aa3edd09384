package io.duraflow.api;

import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.functions.FilterFunction;
import io.duraflow.api.functions.FlatMapFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.functions.MapFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A flow of records of type T; each method adds an operator and returns its output. */
public final class Flow<T> {
    final Plan plan;
    final PlanNode node;

    Flow(Plan plan, PlanNode node) {
        this.plan = plan;
        this.node = node;
    }

    /** Renames the operator that produces this flow (shown in progress and logs). */
    public Flow<T> name(String name) {
        plan.rename(node, name);
        return this;
    }

    /**
     * Gives the operator that produces this flow a stable id: its state in checkpoints and
     * savepoints is stored under it, so a changed job (operators added, renamed, reordered) finds
     * its state again. Without one the id is derived from the operator's kind, name and inputs,
     * which changes when they do. Unique within the job.
     */
    public Flow<T> uid(String uid) {
        plan.setUid(node, uid);
        return this;
    }

    /** Sets the parallelism of the operator that produces this flow, where it can have its own. */
    public Flow<T> parallelism(int parallelism) {
        plan.setParallelism(node, parallelism);
        return this;
    }

    /**
     * Puts the operator that produces this flow in a slot sharing group of its own name. A slot
     * of a TaskManager runs one parallel instance of every operator of a group, so a streaming
     * job needs as many slots as the highest parallelism in each group, summed over its groups.
     * Every operator is in the group {@value #DEFAULT_SLOT_SHARING_GROUP} unless given one; one
     * without a group of its own takes its inputs' group when they all have the same, and the
     * operators chained to it take its group. A group of its own isolates an operator (a heavy
     * one, say) from the others in slots, at the cost of more slots. Batch jobs run each task in a
     * slot of its own and ignore the groups.
     */
    public Flow<T> slotSharingGroup(String group) {
        plan.setSlotSharingGroup(node, group);
        return this;
    }

    /** The slot sharing group of operators that were given none, and of whose inputs have none. */
    public static final String DEFAULT_SLOT_SHARING_GROUP = "default";

    @SuppressWarnings("unchecked")
    public <O> Flow<O> map(MapFunction<T, O> function, TypeSerializer<O> outputType) {
        return add("Map", new Operation.MapOp((MapFunction<Object, Object>) function), outputType);
    }

    @SuppressWarnings("unchecked")
    public <O> Flow<O> flatMap(FlatMapFunction<T, O> function, TypeSerializer<O> outputType) {
        return add("FlatMap", new Operation.FlatMapOp((FlatMapFunction<Object, Object>) function), outputType);
    }

    @SuppressWarnings("unchecked")
    public Flow<T> filter(FilterFunction<T> function) {
        return add("Filter", new Operation.FilterOp((FilterFunction<Object>) function), node.outputType());
    }

    /**
     * Gives each record the timestamp of {@code strategy}'s assigner and emits watermarks from
     * its generator, one per subtask, in place of any from upstream (streaming; in batch mode
     * records pass unchanged). Idleness is a matter of sources' splits: a strategy with
     * {@code withIdleness} is refused here.
     */
    @SuppressWarnings("unchecked")
    public Flow<T> assignTimestampsAndWatermarks(WatermarkStrategy<T> strategy) {
        java.util.Objects.requireNonNull(strategy, "strategy");
        if (strategy.idleness().isPresent()) {
            throw new IllegalArgumentException("assignTimestampsAndWatermarks after " + node.name() + ": idleness"
                    + " applies to a source's splits; set the strategy on the source (fromSource) instead");
        }
        if (strategy.alignment().isPresent()) {
            throw new IllegalArgumentException("assignTimestampsAndWatermarks after " + node.name() + ": watermark"
                    + " alignment applies to sources; set the strategy on the source (fromSource) instead");
        }
        return add("Timestamps/Watermarks",
                new Operation.TimestampsAndWatermarksOp((WatermarkStrategy<Object>) strategy), node.outputType());
    }

    /** Spreads records round-robin over a new set of tasks. */
    public Flow<T> rebalance() {
        return add("Rebalance", new Operation.RebalanceOp(), node.outputType());
    }

    /**
     * The records that the operator producing this flow emits to the side output {@code tag}
     * ({@code context.output(tag, value)}), with the timestamps they would have on its main
     * output. Keyed process and co-process functions emit side outputs, and windows their late
     * records ({@code sideOutputLateData}). Calling this twice for one tag
     * gives two flows, each with every record.
     *
     * @throws IllegalArgumentException when the operator producing this flow cannot emit side outputs
     */
    @SuppressWarnings("unchecked")
    public <X> Flow<X> sideOutput(OutputTag<X> tag) {
        Objects.requireNonNull(tag, "tag");
        if (!(node.operation() instanceof Operation.KeyedProcessOp)
                && !(node.operation() instanceof Operation.KeyedCoProcessOp)) {
            throw new IllegalArgumentException("operator '" + node.name() + "' cannot emit side outputs, so side output '"
                    + tag.id() + "' cannot read it: only a keyed process function (keyBy(...).process(...), windows,"
                    + " connect(...).process(...)) emits them");
        }
        return add("SideOutput[" + tag.id() + "]", new Operation.SideOutputOp((OutputTag<Object>) (OutputTag<?>) tag),
                tag.type());
    }

    /**
     * The records of this flow and of {@code others}, which must be of this job and of this flow's
     * type. Order is kept within each input, not across them. A keyed operator or rebalance after
     * the union reads each input through its own exchange; other operators after it read the union
     * in a task of its own, which its inputs reach through an exchange.
     *
     * @throws IllegalArgumentException for no other flow, a flow of another job, or another type
     */
    @SafeVarargs
    @SuppressWarnings("unchecked")
    public final Flow<T> union(Flow<T>... others) {
        if (others.length == 0) {
            throw new IllegalArgumentException("union of '" + node.name() + "' needs at least one other flow");
        }
        List<PlanNode> inputs = new ArrayList<>(List.of(node));
        for (Flow<T> other : others) {
            Objects.requireNonNull(other, "a flow to union");
            if (other.plan != plan) {
                throw new IllegalArgumentException("cannot union '" + node.name() + "' with '" + other.node.name()
                        + "': '" + other.node.name() + "' belongs to another job plan");
            }
            String type = node.outputType().description();
            String otherType = other.node.outputType().description();
            if (!type.equals(otherType)) {
                throw new IllegalArgumentException("cannot union '" + node.name() + "' (" + type + ") with '"
                        + other.node.name() + "' (" + otherType + "): the flows of a union must have one type");
            }
            inputs.add(other.node);
        }
        return addWithInputs("Union", new Operation.UnionOp(), inputs, (TypeSerializer<T>) node.outputType());
    }

    public <K> KeyedFlow<T, K> keyBy(KeySelector<T, K> keySelector, TypeSerializer<K> keyType) {
        return new KeyedFlow<>(this, keySelector, keyType);
    }

    /** Sends the records back to the client, readable from the job result under this name. */
    public void collect(String name) {
        add(name, new Operation.CollectOp(), null);
    }

    @SuppressWarnings("unchecked")
    public void sinkTo(String name, Sink<T> sink) {
        add(name, new Operation.SinkOp((Sink<Object>) sink), null);
    }

    @SuppressWarnings("unchecked")
    <O> Flow<O> add(String name, Operation operation, TypeSerializer<?> outputType) {
        return (Flow<O>) new Flow<>(plan, plan.add(name, operation, List.of(node), outputType));
    }

    <O> Flow<O> addWithInputs(String name, Operation operation, List<PlanNode> inputs, TypeSerializer<O> type) {
        return new Flow<>(plan, plan.add(name, operation, inputs, type));
    }
}

package io.duraflow.plan;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.RuntimeMode;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link JobGraph#compile} refuses before it cuts a plan into vertices, so a job fails at
 * submission with a sentence instead of in its tasks. Pure functions of the plan and the mode.
 *
 * <ol>
 *   <li>A side output reads an operator that emits side outputs: a keyed process or co-process
 *       function (windows are keyed process functions).
 *   <li>In batch mode, keyed process and co-process functions (and their side outputs) are
 *       refused: they need timers and a watermark, which only the streaming runtime has. ({@code
 *       automatic} mode runs a plan with one in streaming mode, see {@link #runsOnlyInStreaming}.)
 *   <li>In streaming mode, the equi-join is refused: it reads its whole left input before the
 *       right one, which an unbounded input never lets it do.
 *   <li>A function that works in event time ({@code UsesEventTime}: event-time windows, an interval
 *       join) has timestamps on every input: a source with a watermark strategy or {@code
 *       assignTimestampsAndWatermarks} on every path to it.
 *   <li>A union that only exchanges (keyed operators, rebalance) and other unions read is
 *       virtual: it never runs, so it cannot have a parallelism or slot sharing group of its own.
 * </ol>
 */
final class PlanRules {
    private PlanRules() {}

    /** Rules 1 to 4. */
    static void check(Plan plan, RuntimeMode mode) {
        String option = ExecutionOptions.RUNTIME_MODE.key();
        for (PlanNode node : plan.nodes()) {
            Operation op = node.operation();
            if (op instanceof Operation.SideOutputOp side && !emitsSideOutputs(node.inputs().get(0).operation())) {
                throw new IllegalArgumentException("operator '" + node.inputs().get(0).name() + "' cannot emit side"
                        + " outputs, so side output '" + side.tag().id() + "' cannot read it: only a keyed process"
                        + " function (keyBy(...).process(...), windows, connect(...).process(...)) emits them");
            }
            if (mode == RuntimeMode.BATCH && op instanceof Operation.KeyedCoProcessOp) {
                throw new IllegalArgumentException("operator '" + node.name() + "' processes two connected keyed"
                        + " flows, which runs in streaming mode only: set " + option + ": streaming");
            }
            if (mode == RuntimeMode.BATCH
                    && (op instanceof Operation.KeyedProcessOp || op instanceof Operation.SideOutputOp)) {
                throw new IllegalArgumentException("operator '" + node.name() + "' is a keyed process function or its"
                        + " side output, which runs in streaming mode only: run the job in streaming mode (" + option
                        + ": streaming)");
            }
            checkTimestamps(node);
            if (mode == RuntimeMode.STREAMING && op instanceof Operation.JoinOp) {
                throw new IllegalArgumentException("operator '" + node.name() + "' is a batch equi-join, which does not"
                        + " run in streaming mode: run the job in batch mode (" + option + ": batch)");
            }
        }
    }

    /** Rule 4. */
    private static void checkTimestamps(PlanNode node) {
        Object function = node.operation() instanceof Operation.KeyedProcessOp op ? op.function()
                : node.operation() instanceof Operation.KeyedCoProcessOp op ? op.function() : null;
        if (!(function instanceof io.duraflow.api.eventtime.UsesEventTime user) || user.eventTimeUse() == null) {
            return;
        }
        for (PlanNode input : node.inputs()) {
            if (!hasTimestamps(input)) {
                throw new IllegalArgumentException("operator '" + node.name() + "' (" + user.eventTimeUse()
                        + ") works in event time, but its input '" + input.name() + "' has no timestamps: give the"
                        + " source a WatermarkStrategy (fromSource(name, source, strategy)) or call"
                        + " assignTimestampsAndWatermarks before keyBy");
            }
        }
    }

    /** Whether every record of {@code node}'s output has a timestamp. */
    private static boolean hasTimestamps(PlanNode node) {
        if (node.operation() instanceof Operation.SourceOp source) {
            return source.watermarks() != null;
        }
        if (node.operation() instanceof Operation.TimestampsAndWatermarksOp) {
            return true;
        }
        for (PlanNode input : node.inputs()) {
            if (!hasTimestamps(input)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the plan has an operator that runs in streaming mode only (rule 2), so that {@code
     * automatic} mode runs it in streaming mode even when its sources are bounded.
     */
    static boolean runsOnlyInStreaming(Plan plan) {
        for (PlanNode node : plan.nodes()) {
            Operation op = node.operation();
            if (op instanceof Operation.KeyedProcessOp || op instanceof Operation.KeyedCoProcessOp
                    || op instanceof Operation.SideOutputOp) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code op} reads its inputs through exchanges, so it starts a vertex. */
    static boolean readsExchanges(Operation op) {
        return op instanceof Operation.SourceOp || op instanceof Operation.RebalanceOp
                || op instanceof Operation.KeyedAggregateOp || op instanceof Operation.KeyedProcessOp
                || op instanceof Operation.JoinOp || op instanceof Operation.KeyedCoProcessOp;
    }

    static boolean emitsSideOutputs(Operation op) {
        return op instanceof Operation.KeyedProcessOp || op instanceof Operation.KeyedCoProcessOp;
    }

    /**
     * Whether a union node is virtual (rule 4): no operator runs chained to it, so every reader
     * reads its inputs directly and it needs no vertex.
     *
     * @throws IllegalArgumentException for a virtual union with a parallelism or slot sharing group
     */
    static boolean isVirtualUnion(PlanNode node, List<PlanNode> readers) {
        if (!(node.operation() instanceof Operation.UnionOp)) {
            return false;
        }
        for (PlanNode reader : readers) {
            // A union reading a union reads the inner one's inputs, vertex of its own or not.
            if (!readsExchanges(reader.operation()) && !(reader.operation() instanceof Operation.UnionOp)) {
                return false;
            }
        }
        if (node.parallelism() > 0 || node.slotSharingGroup() != null) {
            throw new IllegalArgumentException("operator '" + node.name() + "' is read only by keyed operators,"
                    + " rebalance() or unions, which read its inputs directly, so it takes no parallelism or slot sharing"
                    + " group; set them on its readers");
        }
        return true;
    }

    /**
     * The nodes whose output {@code input} stands for: itself, or for a union every input of it
     * (of nested unions too), in order. These are what an exchange into a reader of {@code input}
     * reads, one edge each.
     */
    static List<PlanNode> producersOf(PlanNode input) {
        List<PlanNode> producers = new ArrayList<>();
        addProducers(input, producers);
        return producers;
    }

    private static void addProducers(PlanNode node, List<PlanNode> producers) {
        if (node.operation() instanceof Operation.UnionOp) {
            for (PlanNode input : node.inputs()) {
                addProducers(input, producers);
            }
        } else {
            producers.add(node);
        }
    }
}

package io.duraflow.taskmanager.task;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The operators of one task, wired from the vertex's plan nodes back to front: each node's output
 * goes to its chained consumers and to the exchanges that leave from it, so every operator is
 * built after the operators it feeds. A head's side outputs go to the side output nodes chained
 * to it, by tag id ({@link SideOutputs}), and its main output to its other consumers only. Both runtime modes wire this way; what differs (which
 * exchange an edge gets, which operator a node becomes) is the mode's {@link Wiring}, and the
 * mode's chain holds one of these and adds what only it does. Drives the operators' {@link
 * StreamOperator} lifecycle through {@link ChainLifecycle}. Task thread only.
 */
public final class OperatorChain implements AutoCloseable {
    /** Settings a chain needs from its TaskManager. */
    public record Settings(long memoryBudgetBytes, long collectMaxBytes, Path spillDirectory) {}

    /** What a runtime mode makes of the edges and nodes of a vertex. */
    public interface Wiring {
        /** The end of the chain that writes into exchange {@code edge}. */
        Downstream exchange(ExchangeEdge edge);

        /** The operator of {@code node}, which is chained after the head and emits into {@code out}. */
        Downstream chained(PlanNode node, Downstream out) throws Exception;

        /**
         * The operator of the vertex's head {@code node}, which emits into {@code out} and its side
         * outputs into {@code sideOutputs} (empty unless the node can emit them, see {@code
         * Operation.SideOutputOp}): a {@link HeadOperator} that reads the vertex's input edges,
         * another operator (a source's), or null when the head needs none (a source whose reader
         * pushes into {@link #sourceOutput}).
         */
        StreamOperator head(PlanNode node, Downstream out, SideOutputs sideOutputs) throws Exception;
    }

    private final JobGraph graph;
    private final JobVertex vertex;
    private final Map<Integer, Downstream> inputOfNode = new HashMap<>();
    /** Every operator in the order it was built: back to front, the head last. */
    private final List<StreamOperator> builtBackToFront = new ArrayList<>();
    private final ChainLifecycle lifecycle = new ChainLifecycle();
    private HeadOperator head;
    private Downstream sourceOutput;

    public OperatorChain(JobGraph graph, JobVertex vertex) {
        this.graph = graph;
        this.vertex = vertex;
    }

    /**
     * Wires the vertex's nodes. Every operator built is registered for the lifecycle also when
     * building fails half way, so {@link #close()} releases the built part.
     */
    public void build(Wiring wiring) throws Exception {
        try {
            List<PlanNode> nodes = vertex.nodes();
            for (int i = nodes.size() - 1; i >= 0; i--) {
                PlanNode node = nodes.get(i);
                List<Downstream> targets = new ArrayList<>();
                Map<String, List<Downstream>> sideTargets = new LinkedHashMap<>();
                for (PlanNode consumer : graph.chainedConsumers(node)) {
                    Downstream input = inputOfNode.get(consumer.id());
                    if (consumer.operation() instanceof Operation.SideOutputOp side) {
                        sideTargets.computeIfAbsent(side.tag().id(), id -> new ArrayList<>()).add(input);
                    } else {
                        targets.add(input);
                    }
                }
                for (ExchangeEdge edge : graph.outgoingEdges(node)) {
                    Downstream exchange = wiring.exchange(edge);
                    targets.add(exchange);
                    builtBackToFront.add(exchange);
                }
                Downstream out = targets.isEmpty() ? record -> { } : FanOut.of(targets);
                if (node == vertex.head()) {
                    buildHead(node, out, SideOutputs.of(sideTargets), wiring);
                    continue;
                }
                if (!sideTargets.isEmpty()) {
                    throw new IllegalStateException("operator " + node + " runs chained and cannot emit the side outputs"
                            + " " + sideTargets.keySet() + " that the plan reads from it");
                }
                Downstream input = wiring.chained(node, out);
                inputOfNode.put(node.id(), input);
                builtBackToFront.add(input);
            }
        } finally {
            for (int i = builtBackToFront.size() - 1; i >= 0; i--) {
                lifecycle.add(builtBackToFront.get(i));
            }
        }
    }

    private void buildHead(PlanNode node, Downstream out, SideOutputs sideOutputs, Wiring wiring) throws Exception {
        if (node.operation() instanceof Operation.SourceOp) {
            sourceOutput = out;
        }
        StreamOperator operator = wiring.head(node, out, sideOutputs);
        if (operator != null) {
            builtBackToFront.add(operator);
        }
        if (operator instanceof HeadOperator headOperator) {
            head = headOperator;
        }
    }

    /** The first operator of a chain that reads input edges; null in a source task. */
    public HeadOperator head() {
        return head;
    }

    /** Where a source task's reader pushes its records; null in a task that reads input edges. */
    public Downstream sourceOutput() {
        return sourceOutput;
    }

    /** Every operator back to front (the head last), for what each must hear in turn (snapshots). */
    public List<StreamOperator> operatorsBackToFront() {
        return Collections.unmodifiableList(builtBackToFront);
    }

    /** Initializes and opens every operator (see {@link StreamOperator} for the order). */
    public void open(StreamOperator.OperatorContext context,
            Function<StreamOperator, StreamOperator.StateInitializationContext> stateOf) throws Exception {
        lifecycle.open(context, stateOf);
    }

    /** All input has been pushed: ends it front to back (see {@link ChainLifecycle#endInput()}). */
    public void endInput() throws Exception {
        lifecycle.endInput();
    }

    /** Closes every operator, also after a failure. Idempotent. */
    @Override
    public void close() throws Exception {
        lifecycle.close();
    }
}

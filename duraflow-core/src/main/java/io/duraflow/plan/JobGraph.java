package io.duraflow.plan;

import io.duraflow.api.Flow;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.source.Boundedness;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.RuntimeMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The plan cut into vertices (operator chains) and exchange edges.
 *
 * <p>Chaining rule: a source, a rebalance, a keyed aggregation, a keyed process function and a
 * join start a new vertex; map, flatMap, filter, side outputs and sinks run in the vertex of their
 * input.
 *
 * <p>Unions: an operator that starts a vertex reads each input of a union (of nested unions too)
 * through an edge of its own, all with the input index of the union, so {@code
 * union(...).keyBy(...)} costs one exchange; such a union is in no vertex ({@link
 * #virtualNodes()}). A union that chained operators read is the head of a vertex of its own, which
 * passes records on and reads each union input {@link ShipStrategy#FORWARD} from a vertex of the
 * same fixed parallelism, else {@link ShipStrategy#REBALANCE}. {@link PlanRules} lists what is
 * refused before.
 *
 * <p>Slot sharing: every vertex is in a slot sharing group ({@link JobVertex#slotSharingGroup()}):
 * its head operator's, else its inputs' when they all have the same, else the default group.
 *
 * <p>Mode ({@link #mode()}, from {@code execution.runtime-mode}): a batch graph's edges are {@link
 * ExchangeMode#BLOCKING} and the adaptive scheduler may decide parallelism; a streaming graph's
 * edges are {@link ExchangeMode#PIPELINED} and every vertex has a fixed parallelism, since all
 * its tasks run at once. keyBy (aggregation, process, join) is {@link ShipStrategy#HASH} and
 * rebalance {@link ShipStrategy#REBALANCE}. A keyed aggregation over a blocking hash edge pre-aggregates in the
 * producing vertex (the combiner) and merges after the exchange; over a pipelined edge it could
 * not (a partial would have to be retracted), so the combiner belongs to the blocking mode.
 * Every vertex records whether its input ends ({@link JobVertex#boundedness()}).
 *
 * <p>Every operator has a stable id ({@link #uid}) under which checkpoints store its state: the
 * one the job set with {@code Flow.uid}, else one derived from its kind, name and inputs.
 *
 * <p>The {@link #fingerprint()} hashes everything that must match between the JobManager and
 * the TaskManagers for them to exchange data: vertices, operators, types, sources and sinks.
 */
public final class JobGraph {
    private final String jobName;
    private final RuntimeMode mode;
    private final List<JobVertex> vertices;
    private final List<ExchangeEdge> edges;
    private final Map<Integer, List<PlanNode>> consumersOfNode;
    /** Nodes in no vertex: unions that only exchanges read (their readers read the unions' inputs). */
    private final List<PlanNode> virtualNodes;
    private final Map<Integer, String> uids;
    private final String fingerprint;

    private JobGraph(String jobName, RuntimeMode mode, List<JobVertex> vertices, List<ExchangeEdge> edges,
            Map<Integer, List<PlanNode>> consumersOfNode, List<PlanNode> virtualNodes, Map<Integer, String> uids) {
        this.jobName = jobName;
        this.virtualNodes = List.copyOf(virtualNodes);
        this.mode = mode;
        this.uids = Map.copyOf(uids);
        this.vertices = List.copyOf(vertices);
        this.edges = List.copyOf(edges);
        this.consumersOfNode = consumersOfNode;
        this.fingerprint = computeFingerprint();
    }

    public String jobName() {
        return jobName;
    }

    /** {@link RuntimeMode#BATCH} or {@link RuntimeMode#STREAMING}; never automatic. */
    public RuntimeMode mode() {
        return mode;
    }

    /**
     * Whether the job uses event time (a source with a watermark strategy, or
     * {@code assignTimestampsAndWatermarks}): then a streaming exchange ships each record's
     * timestamp with it.
     */
    public boolean eventTime() {
        for (JobVertex vertex : vertices) {
            for (PlanNode node : vertex.nodes()) {
                if (node.operation() instanceof Operation.SourceOp source && source.watermarks() != null
                        || node.operation() instanceof Operation.TimestampsAndWatermarksOp) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The stable id of an operator of this graph. */
    public String uid(PlanNode node) {
        String uid = uids.get(node.id());
        if (uid == null) {
            throw new IllegalArgumentException("operator " + node + " is not part of job '" + jobName + "'");
        }
        return uid;
    }

    public List<JobVertex> vertices() {
        return vertices;
    }

    public JobVertex vertex(int id) {
        return vertices.get(id);
    }

    public List<ExchangeEdge> edges() {
        return edges;
    }

    public ExchangeEdge edge(int id) {
        return edges.get(id);
    }

    /** The nodes that are in no vertex: unions whose readers read the unions' inputs directly. */
    public List<PlanNode> virtualNodes() {
        return virtualNodes;
    }

    /** The nodes that read a node's output within the same vertex (chained consumers). */
    public List<PlanNode> chainedConsumers(PlanNode node) {
        return consumersOfNode.getOrDefault(node.id(), List.of());
    }

    /** The edges leaving the vertex from a given node. */
    public List<ExchangeEdge> outgoingEdges(PlanNode node) {
        List<ExchangeEdge> result = new ArrayList<>();
        for (ExchangeEdge edge : edges) {
            if (edge.producerNode() == node) {
                result.add(edge);
            }
        }
        return result;
    }

    public String fingerprint() {
        return fingerprint;
    }

    /** Whether every source ends, so the job can run as a batch job. */
    public boolean isBounded() {
        for (JobVertex vertex : vertices) {
            if (vertex.isSource() && vertex.boundedness() != Boundedness.BOUNDED) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks that every vertex reading an exchange fits the key groups its input is split into:
     * each of its tasks reads a non-empty range of them, so a fixed parallelism above {@code
     * keyGroups} can never run. Checked at submission, so the job fails there with this message
     * instead of after its sources ran. A parallelism decided at runtime is capped at the key
     * groups and always fits.
     *
     * @throws IllegalArgumentException naming the vertex, its parallelism and the option to raise
     */
    public void checkKeyGroups(int keyGroups) {
        for (JobVertex vertex : vertices) {
            if (!vertex.inputs().isEmpty() && vertex.parallelism() > keyGroups) {
                throw new IllegalArgumentException("vertex '" + vertex.name() + "' has parallelism "
                        + vertex.parallelism() + " but its input has only " + keyGroups + " key groups: lower its"
                        + " parallelism or raise " + ExecutionOptions.BATCH_MAX_KEY_GROUPS.key() + " to at least "
                        + vertex.parallelism());
            }
        }
    }

    /**
     * Compiles in {@link RuntimeMode#AUTOMATIC} mode: batch when every source is bounded and no
     * operator runs in streaming mode only (a keyed process function), else streaming.
     */
    public static JobGraph compile(Plan plan, int defaultParallelism) {
        return compile(plan, defaultParallelism, RuntimeMode.AUTOMATIC);
    }

    public static JobGraph compile(Plan plan, int defaultParallelism, RuntimeMode requestedMode) {
        if (defaultParallelism < 1) {
            throw new IllegalArgumentException("default parallelism must be at least 1, got " + defaultParallelism);
        }
        RuntimeMode mode = resolve(plan, requestedMode);
        PlanRules.check(plan, mode);
        ExchangeMode exchangeMode = mode == RuntimeMode.BATCH ? ExchangeMode.BLOCKING : ExchangeMode.PIPELINED;
        List<VertexBuilder> builders = new ArrayList<>();
        List<ExchangeEdge> edges = new ArrayList<>();
        Map<Integer, Integer> vertexOfNode = new HashMap<>();
        Map<Integer, List<PlanNode>> consumers = new HashMap<>();
        List<PlanNode> virtualNodes = new ArrayList<>();
        Map<Integer, List<PlanNode>> readers = readers(plan);

        for (PlanNode node : plan.nodes()) {
            Operation op = node.operation();
            if (PlanRules.isVirtualUnion(node, readers.get(node.id()))) {
                virtualNodes.add(node);
                continue;
            }
            if (!PlanRules.readsExchanges(op) && !(op instanceof Operation.UnionOp)) {
                chain(node, builders, vertexOfNode, consumers);
                continue;
            }
            int vertexId = builders.size();
            // Batch decides the parallelism of a vertex behind an exchange when its input is known;
            // streaming runs every task at once, so it must be fixed now.
            int parallelism = node.parallelism() > 0 ? node.parallelism()
                    : op instanceof Operation.SourceOp || mode == RuntimeMode.STREAMING ? defaultParallelism : -1;
            VertexBuilder builder = new VertexBuilder(vertexId, node, parallelism,
                    op instanceof Operation.SourceOp source ? source.source().boundedness() : Boundedness.BOUNDED);
            List<List<PlanNode>> producersPerInput = new ArrayList<>();
            if (op instanceof Operation.UnionOp) {
                producersPerInput.add(PlanRules.producersOf(node)); // its inputs are one input: 0
            } else {
                for (PlanNode input : node.inputs()) {
                    producersPerInput.add(PlanRules.producersOf(input));
                }
            }
            builder.slotSharingGroup = slotSharingGroup(node, producersPerInput, builders, vertexOfNode);
            builders.add(builder);
            vertexOfNode.put(node.id(), vertexId);
            for (int i = 0; i < producersPerInput.size(); i++) {
                for (PlanNode input : producersPerInput.get(i)) {
                    int producer = vertexOfNode.get(input.id());
                    VertexBuilder producing = builders.get(producer);
                    // A keyed aggregation's edge is always HASH; the combiner needs only a blocking edge.
                    boolean combine = op instanceof Operation.KeyedAggregateOp && exchangeMode == ExchangeMode.BLOCKING;
                    ExchangeEdge edge = new ExchangeEdge(edges.size(), producer, vertexId, input, node, i, exchangeMode,
                            strategy(op, producing.parallelism, parallelism), combine);
                    edges.add(edge);
                    if (producing.boundedness == Boundedness.CONTINUOUS_UNBOUNDED) {
                        builder.boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
                    }
                    producing.outputs.add(edge.id());
                    builder.inputs.add(edge.id());
                }
            }
        }
        for (PlanNode node : plan.nodes()) {
            boolean terminal = node.operation() instanceof Operation.SinkOp
                    || node.operation() instanceof Operation.CollectOp;
            if (!terminal && readers.get(node.id()).isEmpty()) {
                throw new IllegalArgumentException("the output of operator '" + node.name() + "' goes nowhere;"
                        + " end the flow with collect(...) or sinkTo(...)");
            }
        }
        if (builders.isEmpty()) {
            throw new IllegalArgumentException("the job has no source");
        }
        List<JobVertex> vertices = new ArrayList<>();
        for (VertexBuilder b : builders) {
            vertices.add(b.build());
        }
        return new JobGraph(plan.jobName(), mode, vertices, edges, consumers, virtualNodes, uids(plan));
    }

    /** Every node's readers, by node id (an empty list for none). */
    private static Map<Integer, List<PlanNode>> readers(Plan plan) {
        Map<Integer, List<PlanNode>> readers = new HashMap<>();
        for (PlanNode node : plan.nodes()) {
            readers.put(node.id(), new ArrayList<>());
            for (PlanNode input : node.inputs()) {
                readers.get(input.id()).add(node);
            }
        }
        return readers;
    }

    /** Puts a node that runs chained to its input into its input's vertex. */
    private static void chain(PlanNode node, List<VertexBuilder> builders, Map<Integer, Integer> vertexOfNode,
            Map<Integer, List<PlanNode>> consumers) {
        if (node.parallelism() > 0) {
            throw new IllegalArgumentException("operator '" + node.name() + "' runs chained to its input and"
                    + " takes its parallelism; set parallelism on sources, rebalance(), keyed operators"
                    + " and joins");
        }
        if (node.slotSharingGroup() != null) {
            throw new IllegalArgumentException("operator '" + node.name() + "' runs chained to its input and"
                    + " takes its slot sharing group; set slotSharingGroup on sources, rebalance(), keyed"
                    + " operators and joins");
        }
        PlanNode input = node.inputs().get(0);
        int vertex = vertexOfNode.get(input.id());
        vertexOfNode.put(node.id(), vertex);
        builders.get(vertex).nodes.add(node);
        consumers.computeIfAbsent(input.id(), k -> new ArrayList<>()).add(node);
    }

    /**
     * How an edge into {@code op} ships: by key into a keyed operator or a join, round-robin into
     * a rebalance; into a union's own vertex producer task i to consumer task i when both have the
     * same fixed parallelism, else round-robin.
     */
    private static ShipStrategy strategy(Operation op, int producerParallelism, int consumerParallelism) {
        if (op instanceof Operation.RebalanceOp) {
            return ShipStrategy.REBALANCE;
        }
        if (op instanceof Operation.UnionOp) {
            return producerParallelism > 0 && producerParallelism == consumerParallelism ? ShipStrategy.FORWARD
                    : ShipStrategy.REBALANCE;
        }
        return ShipStrategy.HASH;
    }

    /** The node's own group, else its producers' group when they all have the same, else the default group. */
    private static String slotSharingGroup(PlanNode head, List<List<PlanNode>> producersPerInput,
            List<VertexBuilder> builders, Map<Integer, Integer> vertexOfNode) {
        if (head.slotSharingGroup() != null) {
            return head.slotSharingGroup();
        }
        String inherited = null;
        for (List<PlanNode> producers : producersPerInput) {
            for (PlanNode producer : producers) {
                String group = builders.get(vertexOfNode.get(producer.id())).slotSharingGroup;
                if (inherited != null && !inherited.equals(group)) {
                    return Flow.DEFAULT_SLOT_SHARING_GROUP;
                }
                inherited = group;
            }
        }
        return inherited == null ? Flow.DEFAULT_SLOT_SHARING_GROUP : inherited;
    }

    private static RuntimeMode resolve(Plan plan, RuntimeMode requested) {
        String unbounded = null;
        for (PlanNode node : plan.nodes()) {
            if (node.operation() instanceof Operation.SourceOp source
                    && source.source().boundedness() != Boundedness.BOUNDED) {
                unbounded = node.name();
                break;
            }
        }
        if (requested == RuntimeMode.AUTOMATIC) {
            // A job that only streaming runs (a keyed process function) is streaming, bounded or not.
            return unbounded == null && !PlanRules.runsOnlyInStreaming(plan) ? RuntimeMode.BATCH
                    : RuntimeMode.STREAMING;
        }
        if (requested == RuntimeMode.BATCH && unbounded != null) {
            throw new IllegalArgumentException("source '" + unbounded + "' is unbounded, so the job cannot run in batch"
                    + " mode: set " + ExecutionOptions.RUNTIME_MODE.key() + " to streaming or automatic");
        }
        return requested;
    }

    /**
     * Each operator's stable id: the job's own, else the first 16 hex digits of a SHA-256 over its
     * kind, name, the ids of its inputs and how many operators with the same of those came before
     * it, so the id survives changes elsewhere in the job.
     */
    private static Map<Integer, String> uids(Plan plan) {
        Map<Integer, String> uids = new HashMap<>();
        Map<String, Integer> occurrences = new HashMap<>();
        Map<String, PlanNode> owners = new HashMap<>();
        for (PlanNode node : plan.nodes()) {
            String uid = node.uid();
            if (uid == null) {
                StringBuilder text = new StringBuilder(node.operation().kind()).append('\n').append(node.name());
                for (PlanNode input : node.inputs()) {
                    text.append('\n').append(uids.get(input.id()));
                }
                int occurrence = occurrences.merge(text.toString(), 1, Integer::sum);
                uid = sha256Hex(text.append('\n').append(occurrence).toString());
            }
            PlanNode owner = owners.putIfAbsent(uid, node);
            if (owner != null) {
                throw new IllegalArgumentException("operators '" + owner.name() + "' and '" + node.name()
                        + "' have the same uid '" + uid + "': give each its own with uid(...)");
            }
            uids.put(node.id(), uid);
        }
        return uids;
    }

    private static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private String computeFingerprint() {
        StringBuilder text = new StringBuilder("duraflow-plan-v3 ").append(mode).append('\n');
        for (JobVertex vertex : vertices) {
            text.append("vertex ").append(vertex.id()).append(" p=").append(vertex.parallelism())
                    .append(' ').append(vertex.boundedness()).append('\n');
            for (PlanNode node : vertex.nodes()) {
                appendNode(text.append(" node "), node);
            }
        }
        for (PlanNode node : virtualNodes) {
            appendNode(text.append("virtual node "), node);
        }
        for (ExchangeEdge edge : edges) {
            text.append("edge ").append(edge.id()).append(' ').append(edge.producer()).append("->")
                    .append(edge.consumer()).append(' ').append(edge.mode()).append(' ').append(edge.strategy()).append(" combine=")
                    .append(edge.combine()).append(" in=").append(edge.inputIndex())
                    .append(" nodes=").append(edge.producerNode().id()).append("->").append(edge.consumerNode().id())
                    .append('\n');
        }
        return sha256Hex(text.toString());
    }

    private void appendNode(StringBuilder text, PlanNode node) {
        text.append(node.id()).append(' ').append(node.operation().kind())
                .append(" name=").append(node.name()).append(" uid=").append(uids.get(node.id()))
                .append(" out=").append(node.outputType() == null ? "-" : node.outputType().description())
                .append(" detail=").append(node.operation().detail())
                .append(" in=");
        for (PlanNode input : node.inputs()) {
            text.append(input.id()).append(',');
        }
        text.append('\n');
    }

    private static final class VertexBuilder {
        final int id;
        final PlanNode head;
        final int parallelism;
        final List<PlanNode> nodes = new ArrayList<>();
        final List<Integer> inputs = new ArrayList<>();
        final List<Integer> outputs = new ArrayList<>();
        Boundedness boundedness;
        String slotSharingGroup;

        VertexBuilder(int id, PlanNode head, int parallelism, Boundedness boundedness) {
            this.id = id;
            this.head = head;
            this.parallelism = parallelism;
            this.boundedness = boundedness;
            nodes.add(head);
        }

        JobVertex build() {
            StringBuilder name = new StringBuilder();
            for (PlanNode node : nodes) {
                if (name.length() > 0) {
                    name.append(" -> ");
                }
                name.append(node.name());
            }
            return new JobVertex(id, name.toString(), head, List.copyOf(nodes), parallelism, List.copyOf(inputs),
                    List.copyOf(outputs), boundedness, slotSharingGroup);
        }
    }
}

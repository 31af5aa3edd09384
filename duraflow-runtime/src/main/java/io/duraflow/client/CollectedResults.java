package io.duraflow.client;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the records a job collected from its {@link JobResult}: the entry point for clients (the
 * CLI, tests, benchmarks), so they need not know the frame format the collect operator writes.
 */
public final class CollectedResults {
    private CollectedResults() {
    }

    /**
     * Decodes the collected bytes ({@code varint length | record bytes}, as the collect operator
     * writes them) with the types of the plan's collect operators.
     *
     * @throws io.duraflow.exchange.CorruptFrameException if a length overruns the data or a record
     *     does not deserialize to exactly its bytes
     */
    @SuppressWarnings("unchecked")
    public static Map<String, List<Object>> decode(JobResult result, JobGraph graph) {
        Map<String, TypeSerializer<Object>> types = new LinkedHashMap<>();
        if (graph != null) {
            for (var vertex : graph.vertices()) {
                for (PlanNode node : vertex.nodes()) {
                    if (node.operation() instanceof Operation.CollectOp) {
                        types.put(node.name(), (TypeSerializer<Object>) node.inputs().get(0).outputType());
                    }
                }
            }
        }
        Map<String, List<Object>> decoded = new LinkedHashMap<>();
        for (String name : types.keySet()) {
            decoded.put(name, new ArrayList<>());
        }
        for (CollectedResult collected : result.getCollectedList()) {
            TypeSerializer<Object> type = types.get(collected.getName());
            if (type == null) {
                continue;
            }
            List<Object> records = decoded.get(collected.getName());
            byte[] data = collected.getData().toByteArray();
            RecordIterator iterator = Frames.records(data, 0, data.length,
                    "collected result '" + collected.getName() + "' of subtask " + collected.getSubtask());
            while (iterator.hasNext()) {
                records.add(iterator.next(type));
            }
        }
        return decoded;
    }
}

package io.duraflow.jobstore;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;

/**
 * The {@code result} payload of a job result file, version 1; field names as in
 * {@link JobResultEntry}, {@code state} as the {@link JobOutcome} constant's name, collected
 * bytes as standard base64:
 *
 * <pre>
 * {"collected":[{"data":"AQID","name":"out","records":3,"subtask":0}],
 *  "counters":{"lines":3}, "endedAtMs":1700000005000, "failure":"", "jobClass":"com.example.WordCount",
 *  "jobId":"j1", "jobName":"WordCount", "params":{"input":"/data"}, "restarts":0, "state":"FINISHED",
 *  "submittedAtMs":1700000000000,
 *  "vertices":[{"attempts":2,"id":1,"name":"Source","parallelism":2,"recordsIn":0,"recordsOut":3}]}
 * </pre>
 */
final class JobResultJson {
    private JobResultJson() {
    }

    static ObjectNode toJson(JobResultEntry entry) {
        ObjectNode node = StoreFileFormat.MAPPER.createObjectNode();
        node.put("jobId", entry.jobId());
        node.put("jobName", entry.jobName());
        node.put("jobClass", entry.jobClass());
        node.put("state", entry.state().name());
        node.put("submittedAtMs", entry.submittedAtMs());
        node.put("endedAtMs", entry.endedAtMs());
        node.put("failure", entry.failure());
        node.put("restarts", entry.restarts());
        entry.params().forEach(node.putObject("params")::put);
        entry.counters().forEach(node.putObject("counters")::put);
        ArrayNode vertices = node.putArray("vertices");
        for (VertexSummary v : entry.vertices()) {
            ObjectNode vertex = vertices.addObject().put("id", v.id()).put("name", v.name())
                    .put("parallelism", v.parallelism()).put("recordsIn", v.recordsIn())
                    .put("recordsOut", v.recordsOut()).put("attempts", v.attempts());
            v.taskAttempts().forEach(vertex.putArray("taskAttempts")::add);
        }
        ArrayNode collected = node.putArray("collected");
        for (CollectedData c : entry.collected()) {
            collected.addObject().put("name", c.name()).put("subtask", c.subtask()).put("records", c.records())
                    .put("data", Base64.getEncoder().encodeToString(c.data()));
        }
        return node;
    }

    /**
     * Reads a payload.
     *
     * @throws IllegalArgumentException naming the field that is missing or invalid
     */
    static JobResultEntry fromJson(ObjectNode node) {
        JsonFields f = JsonFields.of(node, "result");
        return new JobResultEntry(f.text("jobId"), f.text("jobName"), f.text("jobClass"),
                f.enumValue("state", JobOutcome.class), f.int64("submittedAtMs"), f.int64("endedAtMs"),
                f.text("failure"), f.int32("restarts"), f.stringMap("params"), f.longMap("counters"),
                f.list("vertices", v -> new VertexSummary(v.int32("id"), v.text("name"), v.int32("parallelism"),
                        v.int64("recordsIn"), v.int64("recordsOut"), v.int32("attempts"),
                        v.optionalIntList("taskAttempts"))),
                f.list("collected", c -> new CollectedData(c.text("name"), c.int32("subtask"), c.int64("records"),
                        c.base64("data"))));
    }
}

package io.duraflow.jobstore;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code job} payload of a job graph file, version 1:
 *
 * <pre>
 * {"config":{"parallelism.default":"4"}, "jobClass":"com.example.WordCount", "jobId":"j1",
 *  "parallelism":0, "params":{"input":"/data"}, "submittedAtMs":1700000000000}
 * </pre>
 */
final class SubmittedJobJson {
    private SubmittedJobJson() {
    }

    static ObjectNode toJson(SubmittedJob job) {
        ObjectNode node = StoreFileFormat.MAPPER.createObjectNode();
        node.put("jobId", job.jobId());
        node.put("jobClass", job.jobClass());
        job.params().forEach(node.putObject("params")::put);
        job.config().forEach(node.putObject("config")::put);
        node.put("parallelism", job.parallelism());
        node.put("submittedAtMs", job.submittedAtMs());
        return node;
    }

    /**
     * Reads a payload.
     *
     * @throws IllegalArgumentException naming the field that is missing or invalid
     */
    static SubmittedJob fromJson(ObjectNode node) {
        JsonFields f = JsonFields.of(node, "job");
        return new SubmittedJob(f.text("jobId"), f.text("jobClass"), f.stringMap("params"), f.stringMap("config"),
                f.int32("parallelism"), f.int64("submittedAtMs"));
    }
}

package io.duraflow.jobstore;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code job} payload of a job graph file, version 1:
 *
 * <pre>
 * {"config":{"parallelism.default":"4"}, "jobClass":"com.example.WordCount", "jobId":"j1",
 *  "parallelism":0, "params":{"input":"/data"}, "submittedAtMs":1700000000000}
 * </pre>
 *
 * A job submitted with {@code --from-savepoint} has one more field, absent otherwise (so files
 * written before it existed read as jobs without one):
 * <pre>
 *  "restore":{"path":"/savepoints/savepoint-j0-7", "mode":"NO_CLAIM", "allowNonRestoredState":false}
 * </pre>
 * and a job submitted from a jar this one (absent otherwise):
 * <pre>
 *  "jar":{"sha256":"9f86d0...", "fileName":"app.jar", "size":48213}
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
        if (job.restore() != null) {
            ObjectNode restore = node.putObject("restore");
            restore.put("path", job.restore().path());
            restore.put("mode", job.restore().mode().name());
            restore.put("allowNonRestoredState", job.restore().allowNonRestoredState());
        }
        if (job.jar() != null) {
            ObjectNode jar = node.putObject("jar");
            jar.put("sha256", job.jar().sha256());
            jar.put("fileName", job.jar().fileName());
            jar.put("size", job.jar().size());
        }
        return node;
    }

    /**
     * Reads a payload.
     *
     * @throws IllegalArgumentException naming the field that is missing or invalid
     */
    static SubmittedJob fromJson(ObjectNode node) {
        JsonFields f = JsonFields.of(node, "job");
        RestoreSettings restore = null;
        if (node.has("restore")) {
            JsonFields r = JsonFields.of(node.get("restore"), "job.restore");
            com.fasterxml.jackson.databind.JsonNode allow = node.get("restore").get("allowNonRestoredState");
            if (allow == null || !allow.isBoolean()) {
                throw new IllegalArgumentException("job.restore.allowNonRestoredState: expected a boolean, found "
                        + allow);
            }
            restore = new RestoreSettings(r.text("path"), r.enumValue("mode", RestoreSettings.Mode.class),
                    allow.booleanValue());
        }
        JobJarRef jar = null;
        if (node.has("jar")) {
            JsonFields j = JsonFields.of(node.get("jar"), "job.jar");
            try {
                jar = new JobJarRef(j.text("sha256"), j.text("fileName"), j.int64("size"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("job.jar: " + e.getMessage(), e);
            }
        }
        return new SubmittedJob(f.text("jobId"), f.text("jobClass"), f.stringMap("params"), f.stringMap("config"),
                f.int32("parallelism"), f.int64("submittedAtMs"), restore, jar);
    }
}

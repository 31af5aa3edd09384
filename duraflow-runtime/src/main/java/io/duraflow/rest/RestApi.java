package io.duraflow.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.duraflow.config.ConfigOption;
import io.duraflow.config.ConfigRegistry;
import io.duraflow.config.Configuration;
import io.duraflow.jobstore.JobIds;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobList;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.RestoreSettingsData;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.TriggerSavepointRequest;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The routes of the REST API, version 1, and what each answers. Reads call the JobManager's
 * {@code DispatcherGateway} (the command line's calls, in-process) and show its answers as JSON
 * ({@link ProtoJson}); actions build the same requests the command line sends. The list here is
 * what {@code /v1/openapi.json} documents; {@code OpenApiCoverageTest} holds the two together.
 */
final class RestApi {
    static final String PREFIX = "/v1";

    private final RestBackend backend;
    private final ObjectMapper json;
    private final OpenApi openApi;

    RestApi(RestBackend backend, ObjectMapper json, OpenApi openApi) {
        this.backend = backend;
        this.json = json;
        this.openApi = openApi;
    }

    List<Route> routes() {
        return List.of(
                new Route("GET", PREFIX + "/overview", true, call -> overview()),
                new Route("GET", PREFIX + "/taskmanagers", true, call -> taskManagers()),
                new Route("GET", PREFIX + "/jobs", true, call -> jobs()),
                new Route("POST", PREFIX + "/jobs", true, this::submit),
                new Route("GET", PREFIX + "/jobs/{jobId}", true,
                        call -> ask(gateway()::getJobStatus, jobId(call)).thenApply(Route.Reply::ok)),
                new Route("GET", PREFIX + "/jobs/{jobId}/result", true, this::result),
                new Route("GET", PREFIX + "/jobs/{jobId}/checkpoints", true,
                        call -> ask(gateway()::getJobCheckpoints, jobId(call)).thenApply(Route.Reply::ok)),
                new Route("GET", PREFIX + "/jobs/{jobId}/events", true,
                        call -> ask(gateway()::getJobEvents, jobId(call)).thenApply(Route.Reply::ok)),
                new Route("POST", PREFIX + "/jobs/{jobId}/cancel", true, this::cancel),
                new Route("POST", PREFIX + "/jobs/{jobId}/savepoints", true, this::savepoint),
                new Route("GET", PREFIX + "/config", false, call -> config()),
                new Route("GET", PREFIX + "/openapi.json", false,
                        call -> CompletableFuture.completedFuture(Route.Reply.ok(openApi.document()))));
    }

    private DispatcherGatewayGrpc.AsyncService gateway() {
        return backend.gateway();
    }

    private static <A> CompletableFuture<A> ask(BiConsumer<JobIdRequest, io.grpc.stub.StreamObserver<A>> method,
            String jobId) {
        return GatewayCall.call(method, JobIdRequest.newBuilder().setJobId(jobId).build());
    }

    /** The path's job id, checked here so that a malformed one is a 400 naming the parameter. */
    private static String jobId(Route.Call call) {
        String jobId = call.param("jobId");
        if (!JobIds.isValid(jobId)) {
            throw RestException.badRequest("jobId", "malformed job id '" + oneLine(jobId)
                    + "': 1 to 64 letters, digits, '_' or '-'");
        }
        return jobId;
    }

    // ------------------------------------------------------------------ reads

    private CompletableFuture<Route.Reply> overview() {
        CompletableFuture<ClusterOverview> cluster = GatewayCall.call(gateway()::getClusterOverview,
                Empty.getDefaultInstance());
        CompletableFuture<JobList> jobs = GatewayCall.call(gateway()::listJobs, Empty.getDefaultInstance());
        return cluster.thenCombine(jobs, (overview, list) -> {
            ObjectNode body = json.createObjectNode();
            body.putObject("leader").put("address", overview.getAddress()).put("restUrl", overview.getRestUrl())
                    .put("sessionId", overview.getJmSessionId());
            int slots = 0;
            int free = 0;
            for (TaskManagerInfo tm : overview.getTaskManagersList()) {
                slots += tm.getSlots();
                free += tm.getFreeSlots();
            }
            body.put("taskManagers", overview.getTaskManagersCount()).put("slots", slots).put("freeSlots", free)
                    .put("runningJobs", overview.getRunningJobs());
            ObjectNode byState = body.putObject("jobsByState");
            for (JobStatus job : list.getJobsList()) {
                String state = JobStates.name(job);
                byState.put(state, byState.path(state).asInt() + 1);
            }
            return Route.Reply.ok(body);
        });
    }

    private CompletableFuture<Route.Reply> taskManagers() {
        return GatewayCall.call(gateway()::getClusterOverview, Empty.getDefaultInstance()).thenApply(overview -> {
            ObjectNode body = json.createObjectNode();
            ArrayNode list = body.putArray("taskManagers");
            for (TaskManagerInfo tm : overview.getTaskManagersList()) {
                list.addPOJO(new ProtoTree(tm));
            }
            return Route.Reply.ok(body);
        });
    }

    /** Running jobs, then the results the leader remembers (the job result store's newest), without vertices. */
    private CompletableFuture<Route.Reply> jobs() {
        return GatewayCall.call(gateway()::listJobs, Empty.getDefaultInstance()).thenApply(list -> {
            JobList.Builder light = JobList.newBuilder();
            for (JobStatus job : list.getJobsList()) {
                light.addJobs(job.toBuilder().clearVertices());
            }
            return Route.Reply.ok(light.build());
        });
    }

    /** The result without the collected records' bytes: they are the job's serializer's, not JSON. */
    private CompletableFuture<Route.Reply> result(Route.Call call) {
        return ask(gateway()::getJobResult, jobId(call)).thenApply(result -> {
            JobResult.Builder light = result.toBuilder().clearCollected();
            for (CollectedResult collected : result.getCollectedList()) {
                light.addCollected(collected.toBuilder().clearData());
            }
            return Route.Reply.ok(light.build());
        });
    }

    /** Every option with its value here, default and description; secrets show as set or not, never their value. */
    private CompletableFuture<Route.Reply> config() {
        Configuration config = backend.configuration();
        ObjectNode body = json.createObjectNode();
        ArrayNode options = body.putArray("options");
        for (ConfigOption<?> option : ConfigRegistry.global().options()) {
            ObjectNode entry = options.addObject().put("key", option.key()).put("type", option.type().toString())
                    .put("set", config.contains(option));
            boolean secret = isSecret(option.key());
            Object value = config.get(option);
            entry.put("value", value == null ? null : secret ? "******" : format(option, value));
            entry.put("default", option.hasDefaultValue() ? format(option, option.defaultValue()) : null);
            entry.put("description", option.description());
        }
        return CompletableFuture.completedFuture(Route.Reply.ok(body));
    }

    static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.contains("token") || lower.contains("password") || lower.contains("secret");
    }

    @SuppressWarnings("unchecked")
    private static <T> String format(ConfigOption<T> option, Object value) {
        return option.format((T) value);
    }

    // ------------------------------------------------------------------ actions

    private static final Set<String> SUBMIT_FIELDS = Set.of("jobClass", "jobId", "params", "config", "parallelism",
            "restore");
    private static final Set<String> RESTORE_FIELDS = Set.of("path", "claim", "allowNonRestoredState");
    private static final Set<String> SAVEPOINT_FIELDS = Set.of("targetDirectory", "cancelJob");

    /** Submits a job as {@code duraflow run --detached} does; 202 with its id once the JobManager accepted it. */
    private CompletableFuture<Route.Reply> submit(Route.Call call) throws java.io.IOException {
        if (call.jar() != null) {
            // The jar is the body; the submission's fields, all optional, come as JSON in the query.
            String submission = call.query().getOrDefault("submission", "{}");
            SubmitJobRequest.Builder request = request(Bodies.object(json,
                    submission.getBytes(java.nio.charset.StandardCharsets.UTF_8), true), false);
            String fileName = call.query().getOrDefault("fileName", "upload.jar");
            return JarUploads.submit(gateway(), request, call.jar(), fileName).thenApply(this::accepted);
        }
        return GatewayCall.call(gateway()::submitJob, request(Bodies.object(json, call.body(), true), true).build())
                .thenApply(this::accepted);
    }

    private Route.Reply accepted(io.duraflow.rpc.proto.SubmitJobResponse submitted) {
        return new Route.Reply(202, submitted, Map.of("Location", PREFIX + "/jobs/" + submitted.getJobId()));
    }

    /** A submission's fields; {@code jobClass} may be left out when a jar names it. */
    private static SubmitJobRequest.Builder request(JsonNode body, boolean classRequired) {
        Bodies.onlyFields(body, SUBMIT_FIELDS, "");
        SubmitJobRequest.Builder request = SubmitJobRequest.newBuilder()
                .setJobClass(classRequired ? Bodies.requiredString(body, "jobClass")
                        : Bodies.optionalString(body, "jobClass", ""));
        String jobId = Bodies.optionalString(body, "jobId", "");
        if (!jobId.isEmpty() && !JobIds.isValid(jobId)) {
            throw RestException.badRequest("jobId", "malformed job id '" + oneLine(jobId)
                    + "': 1 to 64 letters, digits, '_' or '-'");
        }
        request.setJobId(jobId).putAllParams(Bodies.stringMap(body, "params"))
                .putAllConfig(Bodies.stringMap(body, "config"));
        int parallelism = Bodies.optionalInt(body, "parallelism", 0);
        if (parallelism < 0) {
            throw RestException.badRequest("parallelism", "parallelism must be at least 1 (or 0: parallelism.default)");
        }
        request.setParallelism(parallelism);
        JsonNode restore = body.get("restore");
        if (restore != null && !restore.isNull()) {
            if (!restore.isObject()) {
                throw RestException.badRequest("restore", "restore must be an object with path, claim,"
                        + " allowNonRestoredState");
            }
            Bodies.onlyFields(restore, RESTORE_FIELDS, "restore.");
            request.setRestore(RestoreSettingsData.newBuilder().setPath(Bodies.requiredString(restore, "path",
                            "restore.path")).setClaim(Bodies.optionalBoolean(restore, "claim", "restore.claim"))
                    .setAllowNonRestoredState(Bodies.optionalBoolean(restore, "allowNonRestoredState",
                            "restore.allowNonRestoredState")));
        }
        return request;
    }

    /** Cancels a running job as {@code duraflow cancel} does; 202: it ends CANCELED shortly. */
    private CompletableFuture<Route.Reply> cancel(Route.Call call) {
        String jobId = jobId(call);
        Bodies.onlyFields(Bodies.object(json, call.body(), false), Set.of(), "");
        return ask(gateway()::cancelJob, jobId).thenApply(ack -> {
            ObjectNode body = json.createObjectNode().put("jobId", jobId).put("state", "CANCELLING");
            return new Route.Reply(202, body, Map.of("Location", PREFIX + "/jobs/" + jobId));
        });
    }

    /** Takes a savepoint as {@code duraflow savepoint} does; answers once it completed (or failed: 409). */
    private CompletableFuture<Route.Reply> savepoint(Route.Call call) {
        String jobId = jobId(call);
        JsonNode body = Bodies.object(json, call.body(), false);
        Bodies.onlyFields(body, SAVEPOINT_FIELDS, "");
        TriggerSavepointRequest request = TriggerSavepointRequest.newBuilder().setJobId(jobId)
                .setTargetDirectory(Bodies.optionalString(body, "targetDirectory", ""))
                .setCancelJob(Bodies.optionalBoolean(body, "cancelJob", "cancelJob")).build();
        return GatewayCall.call(gateway()::triggerSavepoint, request).thenApply(Route.Reply::ok);
    }

    static String oneLine(String text) {
        String line = String.valueOf(text).replaceAll("[\\r\\n\\t]", " ");
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }

    /** A protobuf message that Jackson writes through {@link ProtoJson}. */
    record ProtoTree(com.google.protobuf.Message message) implements com.fasterxml.jackson.databind.JsonSerializable {
        @Override
        public void serialize(com.fasterxml.jackson.core.JsonGenerator gen,
                com.fasterxml.jackson.databind.SerializerProvider serializers) throws IOException {
            ProtoJson.write(message, gen);
        }

        @Override
        public void serializeWithType(com.fasterxml.jackson.core.JsonGenerator gen,
                com.fasterxml.jackson.databind.SerializerProvider serializers,
                com.fasterxml.jackson.databind.jsontype.TypeSerializer typeSer) throws IOException {
            serialize(gen, serializers);
        }
    }
}

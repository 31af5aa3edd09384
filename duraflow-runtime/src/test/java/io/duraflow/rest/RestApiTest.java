package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.duraflow.config.Configuration;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.taskmanager.TaskManagerRunner;
import io.grpc.ManagedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The REST API's contract, endpoint by endpoint, against a JobManager and a TaskManager in this
 * JVM on loopback: a streaming job that runs (checkpoints every 300 ms) and a batch job that
 * finished. Each endpoint: its happy path, an unknown job (404), a malformed id (400 naming
 * {@code jobId}), a wrong method (405 with {@code Allow}); every error is one JSON object.
 * Tokens are in {@link RestAuthTest}, standbys in {@link RestLeadershipTest}.
 */
class RestApiTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAMING = "rest-streaming";
    private static final String BATCH = "rest-batch";
    /** Paths that take a job id, with the method each answers. */
    private static final List<String[]> JOB_ENDPOINTS = List.of(new String[] {"GET", ""},
            new String[] {"GET", "/result"}, new String[] {"GET", "/checkpoints"}, new String[] {"GET", "/events"},
            new String[] {"POST", "/cancel"}, new String[] {"POST", "/savepoints"});

    private static Path dir;
    private static JobManagerRunner jobManager;
    private static TaskManagerRunner taskManager;
    private static ManagedChannel channel;
    private static DispatcherGatewayGrpc.DispatcherGatewayBlockingStub grpc;
    private static Http http;

    @BeforeAll
    static void startClusterAndJobs() throws Exception {
        dir = Files.createTempDirectory("rest-api-test");
        Configuration config = Configuration.fromMap(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "rest.port", "0", "heartbeat.interval", "200ms",
                "taskmanager.slots", "8", "taskmanager.data-dir", dir.resolve("tm").toString(),
                "execution.checkpointing.dir", dir.resolve("chk").toString()));
        jobManager = JobManagerRunner.start(config);
        taskManager = TaskManagerRunner.start(config, "127.0.0.1:" + jobManager.port(), 60_000);
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
        grpc = DispatcherGatewayGrpc.newBlockingStub(channel);
        http = new Http(jobManager.restUrl());
        await().atMost(TIMEOUT).until(() -> http.get("/v1/taskmanagers").json().path("taskManagers").size() == 1);

        assertThat(http.post("/v1/jobs", streamingJob(STREAMING)).status()).isEqualTo(202);
        assertThat(http.post("/v1/jobs", "{\"jobId\": \"" + BATCH + "\", \"jobClass\": \"" + WordCount.class.getName()
                + "\", \"params\": {\"words\": \"1000\"}, \"parallelism\": 2}").status()).isEqualTo(202);
        await().atMost(TIMEOUT).until(() -> state(BATCH).equals("JOB_FINISHED"));
        await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + STREAMING).json().path("vertices").findValues("rates")
                .size() > 0);
    }

    static String streamingJob(String jobId) {
        return "{\"jobId\": \"" + jobId + "\", \"jobClass\": \"" + StreamingKeyedSum.class.getName() + "\","
                + " \"params\": {\"records\": \"0\", \"keys\": \"100\", \"rate\": \"2000\"}, \"parallelism\": 2,"
                + " \"config\": {\"execution.checkpointing.interval\": \"300ms\"}}";
    }

    @AfterAll
    static void stopCluster() {
        Rpc.shutdown(channel);
        taskManager.close();
        jobManager.close();
    }

    private static String state(String jobId) {
        return http.get("/v1/jobs/" + jobId).json().path("state").asText();
    }

    private static void assertError(Http.Answer answer, int status, String messagePart) {
        assertThat(answer.status()).as(answer.response().body()).isEqualTo(status);
        assertThat(answer.header("Content-Type")).startsWith("application/json");
        assertThat(answer.json().path("status").asInt()).isEqualTo(status);
        assertThat(answer.json().path("error").asText()).isNotEmpty();
        assertThat(answer.json().path("message").asText()).contains(messagePart).doesNotContain("\n");
    }

    // ------------------------------------------------------------------ cluster

    @Test
    void theOverviewNamesTheLeaderAndCountsTaskManagersSlotsAndJobs() {
        Http.Answer answer = http.get("/v1/overview");

        assertThat(answer.status()).isEqualTo(200);
        JsonNode overview = answer.json();
        assertThat(overview.path("leader").path("restUrl").asText()).isEqualTo(jobManager.restUrl());
        assertThat(overview.path("leader").path("address").asText()).isEqualTo(jobManager.address());
        assertThat(overview.path("taskManagers").asInt()).isEqualTo(1);
        assertThat(overview.path("slots").asInt()).isEqualTo(8);
        assertThat(overview.path("runningJobs").asInt()).isPositive();
        assertThat(overview.path("jobsByState").path("FINISHED").asInt()).isPositive();
    }

    @Test
    void theTaskManagersShowSlotsMemoryAndPartitions() {
        JsonNode tm = http.get("/v1/taskmanagers").json().path("taskManagers").get(0);

        assertThat(tm.path("tmId").asText()).isEqualTo(taskManager.taskManagerId());
        assertThat(tm.path("slots").asInt()).isEqualTo(8);
        assertThat(tm.path("freeSlots").asInt()).isBetween(0, 8);
        assertThat(tm.path("heapUsedBytes").asLong()).isPositive();
        assertThat(tm.has("partitions")).isTrue();
        assertThat(tm.has("networkBytesTotal")).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"PUT /v1/overview", "DELETE /v1/taskmanagers", "DELETE /v1/jobs", "PUT /v1/config",
            "POST /v1/openapi.json"})
    void aWrongMethodIs405WithTheAllowedOnes(String request) {
        String[] parts = request.split(" ");

        Http.Answer answer = http.send(parts[0], parts[1], null, null);

        assertError(answer, 405, "is not allowed on " + parts[1]);
        assertThat(answer.header("Allow")).isNotEmpty().doesNotContain(parts[0]);
    }

    @Test
    void anUnknownPathIs404() {
        assertError(http.get("/v1/nothing-here"), 404, "no such resource: /v1/nothing-here");
        assertError(http.get("/v1/jobs/" + BATCH + "/nothing"), 404, "no such resource");
    }

    // ------------------------------------------------------------------ jobs

    @Test
    void theJobListHasRunningJobsAndResultsWithoutTheirVertices() {
        JsonNode jobs = http.get("/v1/jobs").json().path("jobs");

        Map<String, String> states = new java.util.HashMap<>();
        for (JsonNode job : jobs) {
            states.put(job.path("jobId").asText(), job.path("state").asText());
            assertThat(job.path("vertices").size()).isZero();
        }
        assertThat(states).containsEntry(STREAMING, "JOB_RUNNING").containsEntry(BATCH, "JOB_FINISHED");
    }

    @Test
    void aRunningJobShowsItsVerticesEdgesSubtasksAttemptsAndRates() {
        JsonNode job = await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + STREAMING).json(),
                j -> j.path("vertices").findValues("state").stream().allMatch(s -> s.asText().equals("RUNNING")));

        assertThat(job.path("mode").asText()).isEqualTo("STREAMING");
        assertThat(job.path("state").asText()).isEqualTo("JOB_RUNNING");
        JsonNode vertices = job.path("vertices");
        assertThat(vertices.size()).isGreaterThanOrEqualTo(2);
        JsonNode source = vertices.get(0);
        assertThat(source.path("parallelism").asInt()).isEqualTo(2);
        assertThat(source.path("tasks").size()).isEqualTo(2);
        for (JsonNode task : source.path("tasks")) {
            assertThat(task.path("attempt").asInt()).isZero();
            assertThat(task.path("state").asText()).isEqualTo("RUNNING");
            assertThat(task.path("tmId").asText()).isEqualTo(taskManager.taskManagerId());
            assertThat(task.path("attemptsStarted").asInt()).isEqualTo(1);
        }
        JsonNode sum = vertices.get(vertices.size() - 1);
        assertThat(sum.path("inputs").get(0).path("producer").asInt())
                .isEqualTo(vertices.get(vertices.size() - 2).path("id").asInt());
        assertThat(sum.path("inputs").get(0).path("mode").asText()).isEqualTo("PIPELINED");
        JsonNode rates = await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + STREAMING).json().path("vertices")
                .get(0).path("rates"), r -> r.path("recordsOutPerSecond").asDouble() > 0);
        assertThat(rates.path("busyMsPerSecond").isNumber()).isTrue();
        assertThat(rates.path("backpressuredMsPerSecond").isNumber()).isTrue();
        assertThat(rates.path("subtasks").asInt()).isEqualTo(2);
    }

    /** The CLI shows {@code GetJobStatus}; REST writes the very same message as JSON. */
    @Test
    void aJobsDetailIsWhatTheCliIsToldAsJson() throws Exception {
        JobStatus viaGrpc = grpc.getJobStatus(JobIdRequest.newBuilder().setJobId(BATCH).build());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (var generator = JSON.getFactory().createGenerator(out)) {
            ProtoJson.write(viaGrpc, generator);
        }

        JsonNode viaRest = http.get("/v1/jobs/" + BATCH).json();

        assertThat(viaRest).isEqualTo(JSON.readTree(out.toByteArray()));
        assertThat(viaRest.path("vertices").findValues("tasks").get(0).get(0).path("recordsOut").asLong()).isPositive();
    }

    @Test
    void aFinishedJobsResultComesFromTheJobResultStoreWithoutTheRecordBytes() {
        JsonNode result = http.get("/v1/jobs/" + BATCH + "/result").json();

        assertThat(result.path("status").path("state").asText()).isEqualTo("JOB_FINISHED");
        assertThat(result.path("status").path("endedAtMs").asLong()).isPositive();
        assertThat(result.path("params").path("words").asText()).isEqualTo("1000");
        for (JsonNode collected : result.path("collected")) {
            assertThat(collected.path("data").asText()).isEmpty();
        }
    }

    @Test
    void aStreamingJobsCheckpointsShowHistorySizesFilesAndTiming() {
        JsonNode report = await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + STREAMING + "/checkpoints").json(),
                r -> r.path("completed").asInt() >= 2);

        assertThat(report.path("intervalMs").asLong()).isEqualTo(300);
        assertThat(report.path("latestCompletedId").asLong()).isPositive();
        JsonNode completed = StreamSupport.stream(report.path("checkpoints").spliterator(), false)
                .filter(c -> c.path("status").asText().equals("COMPLETED")).findFirst().orElseThrow();
        assertThat(completed.path("checkpointId").asLong()).isPositive();
        assertThat(completed.path("durationMs").isNumber()).isTrue();
        assertThat(completed.path("stateSizeBytes").asLong()).isPositive();
        assertThat(completed.path("filesUploaded").isNumber()).isTrue();
        assertThat(completed.path("triggerMs").asLong()).isPositive();
        assertThat(completed.has("failureReason")).isTrue();
    }

    @Test
    void aJobThatEndedHasNoCheckpointStatisticsLeft() {
        assertError(http.get("/v1/jobs/" + BATCH + "/checkpoints"), 409, "has ended (FINISHED)");
    }

    @Test
    void aJobWithoutAnEventLogSaysWhy() {
        assertError(http.get("/v1/jobs/" + BATCH + "/events"), 404, "no event log for job '" + BATCH + "'");
    }

    @Test
    void everyJobEndpointAnswers404ForAnUnknownJob() {
        for (String[] endpoint : JOB_ENDPOINTS) {
            Http.Answer answer = http.send(endpoint[0], "/v1/jobs/no-such-job" + endpoint[1],
                    endpoint[0].equals("POST") ? "{}" : null, endpoint[0].equals("POST") ? "application/json" : null);
            assertThat(answer.status()).as(endpoint[0] + " " + endpoint[1] + ": " + answer.response().body())
                    .isEqualTo(404);
            assertThat(answer.json().path("message").asText()).contains("no-such-job");
        }
    }

    @Test
    void everyJobEndpointAnswers400ForAMalformedId() {
        for (String id : List.of("bad%20id", "a".repeat(65), "semi%3Bcolon")) {
            for (String[] endpoint : JOB_ENDPOINTS) {
                Http.Answer answer = http.send(endpoint[0], "/v1/jobs/" + id + endpoint[1],
                        endpoint[0].equals("POST") ? "{}" : null, endpoint[0].equals("POST") ? "application/json" : null);
                assertError(answer, 400, "malformed job id");
                assertThat(answer.json().path("field").asText()).isEqualTo("jobId");
            }
        }
    }

    @Test
    void everyJobEndpointAnswers405ForAWrongMethod() {
        for (String[] endpoint : JOB_ENDPOINTS) {
            String wrong = endpoint[0].equals("GET") ? "POST" : "GET";
            Http.Answer answer = http.send(wrong, "/v1/jobs/" + STREAMING + endpoint[1], null, null);
            assertError(answer, 405, "method " + wrong + " is not allowed");
            assertThat(answer.header("Allow")).isEqualTo(endpoint[0]);
        }
        assertThat(http.send("DELETE", "/v1/jobs/" + STREAMING, null, null).status()).isEqualTo(405);
        assertThat(state(STREAMING)).isEqualTo("JOB_RUNNING");
    }

    // ------------------------------------------------------------------ actions

    @Test
    void aSubmittedJobIsAcceptedWithItsLocationAndRuns() {
        Http.Answer answer = http.post("/v1/jobs", "{\"jobId\": \"rest-submitted\", \"jobClass\": \""
                + WordCount.class.getName() + "\", \"params\": {\"words\": \"200\"}}");

        assertThat(answer.status()).as(answer.response().body()).isEqualTo(202);
        assertThat(answer.json().path("jobId").asText()).isEqualTo("rest-submitted");
        assertThat(answer.header("Location")).isEqualTo("/v1/jobs/rest-submitted");
        await().atMost(TIMEOUT).until(() -> state("rest-submitted").equals("JOB_FINISHED"));
    }

    @Test
    void aBadSubmissionIs400NamingTheField() {
        assertThat(http.post("/v1/jobs", "{\"params\": {}}").json().path("field").asText()).isEqualTo("jobClass");
        assertThat(http.post("/v1/jobs", "{\"jobClass\": \"x\", \"paralelism\": 2}").json().path("field").asText())
                .isEqualTo("paralelism");
        assertThat(http.post("/v1/jobs", "{\"jobClass\": \"x\", \"parallelism\": \"two\"}").json().path("field")
                .asText()).isEqualTo("parallelism");
        assertThat(http.post("/v1/jobs", "{\"jobClass\": \"x\", \"jobId\": \"no way\"}").json().path("field")
                .asText()).isEqualTo("jobId");
        assertError(http.post("/v1/jobs", "{not json"), 400, "the body is not JSON");
        assertError(http.post("/v1/jobs", "[1, 2]"), 400, "must be a JSON object");
        assertError(http.post("/v1/jobs", ""), 400, "needs a JSON object");
        assertError(http.send("POST", "/v1/jobs", "{}", "text/plain"), 415, "Content-Type: application/json");
    }

    @Test
    void aJobClassThatDoesNotExistIsABadRequest() {
        Http.Answer answer = http.post("/v1/jobs", "{\"jobClass\": \"com.example.NoSuchJob\"}");

        assertThat(answer.status()).as(answer.response().body()).isBetween(400, 499);
        assertThat(answer.json().path("message").asText()).contains("com.example.NoSuchJob");
    }

    @Test
    void aSavepointOfARunningStreamingJobAnswersWithItsPath() {
        await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + STREAMING + "/checkpoints").json()
                .path("completed").asInt() >= 1);

        Http.Answer answer = http.post("/v1/jobs/" + STREAMING + "/savepoints",
                "{\"targetDirectory\": \"" + dir.resolve("savepoints").toString().replace("\\", "\\\\") + "\"}");

        assertThat(answer.status()).as(answer.response().body()).isEqualTo(200);
        assertThat(answer.json().path("path").asText()).startsWith(dir.resolve("savepoints").toString());
        assertThat(state(STREAMING)).isEqualTo("JOB_RUNNING");
        assertThat(http.post("/v1/jobs/" + STREAMING + "/savepoints", "{\"cancel\": true}").json().path("field")
                .asText()).isEqualTo("cancel");
        assertError(http.post("/v1/jobs/" + BATCH + "/savepoints", "{}"), 409, BATCH);
    }

    @Test
    void aCancelledJobEndsCanceled() {
        assertThat(http.post("/v1/jobs", streamingJob("rest-to-cancel")).status()).isEqualTo(202);
        await().atMost(TIMEOUT).until(() -> state("rest-to-cancel").equals("JOB_RUNNING"));

        Http.Answer answer = http.post("/v1/jobs/rest-to-cancel/cancel", "");

        assertThat(answer.status()).as(answer.response().body()).isEqualTo(202);
        assertThat(answer.json().path("state").asText()).isEqualTo("CANCELLING");
        await().atMost(TIMEOUT).until(() -> state("rest-to-cancel").equals("JOB_CANCELED"));
        assertThat(http.post("/v1/jobs/rest-to-cancel/cancel", "{\"now\": 1}").json().path("field").asText())
                .isEqualTo("now");
    }

    // ------------------------------------------------------------------ the rest

    @Test
    void theConfigurationShowsEveryOptionWithItsValueAndDefault() {
        JsonNode options = http.get("/v1/config").json().path("options");

        JsonNode port = find(options, "rest.port");
        assertThat(port.path("set").asBoolean()).isTrue();
        assertThat(port.path("value").asText()).isEqualTo("0");
        assertThat(port.path("default").asText()).isEqualTo("8081");
        JsonNode token = find(options, "rest.auth.token");
        assertThat(token.path("set").asBoolean()).isFalse();
        assertThat(token.path("value").isNull()).isTrue();
        assertThat(find(options, "taskmanager.slots").path("description").asText()).isNotEmpty();
    }

    static JsonNode find(JsonNode options, String key) {
        for (JsonNode option : options) {
            if (option.path("key").asText().equals(key)) {
                return option;
            }
        }
        throw new AssertionError("no option " + key + " in " + options);
    }

    @Test
    void theOpenApiDocumentDescribesEveryRoute() {
        JsonNode document = http.get("/v1/openapi.json").json();

        assertThat(document.path("openapi").asText()).startsWith("3.");
        List<String> missing = new ArrayList<>();
        for (Route route : new RestApi(null, JSON, new OpenApi(JSON)).routes()) {
            JsonNode operation = document.path("paths").path(route.template()).path(route.method().toLowerCase());
            if (operation.isMissingNode()) {
                missing.add(route.method() + " " + route.template());
            }
        }
        assertThat(missing).as("routes the document does not describe").isEmpty();
        assertThat(document.path("components").path("schemas").path("JobStatus").path("properties")
                .has("vertices")).isTrue();
        List<String> unresolved = new ArrayList<>();
        document.findValues("$ref").forEach(ref -> {
            if (!ref.asText().startsWith("#/") || document.at(ref.asText().substring(1)).isMissingNode()) {
                unresolved.add(ref.asText());
            }
        });
        assertThat(unresolved).as("references to nothing").isEmpty();
    }

    @Test
    void theWebUiIsServedAtTheRoot() {
        Http.Answer index = http.get("/");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.header("Content-Type")).startsWith("text/html");
        assertThat(index.header("Content-Security-Policy")).contains("default-src 'self'");
        assertThat(index.response().body()).contains("/ui/app.js");

        assertThat(http.get("/ui/app.js").status()).isEqualTo(200);
        assertThat(http.get("/ui/dag.js").status()).isEqualTo(200);
        assertThat(http.get("/webjars/uplot/1.6.30/dist/uPlot.iife.min.js").status()).isEqualTo(200);
        assertThat(http.get("/ui/nothing.js").status()).isEqualTo(404);
        assertThat(http.get("/ui/..%2Fopenapi.json").status()).isEqualTo(404);
        assertThat(http.send("POST", "/", "x", "text/plain").status()).isEqualTo(405);
    }
}

package io.duraflow.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.LocalCluster;
import io.duraflow.examples.StreamingKeyedSum;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * How fast the REST API answers a job-detail request ({@code GET /v1/jobs/<id>}: every vertex and
 * subtask with attempts, records and rates) while a streaming job with many subtasks runs on a
 * local cluster (a JobManager and a TaskManager, separate processes): StreamingKeyedSum at
 * parallelism {@code bench.rest-parallelism} (2 vertices, so twice as many subtasks), rate-limited,
 * checkpointing every second. One client asks {@code bench.rest-requests} times in a row after a
 * warm-up; the benchmark prints the latency percentiles and the answer's size. Target: p99 under
 * 50 ms with 200 subtasks.
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench -Dbench.main=io.duraflow.bench.RestLatencyBenchmark -pl duraflow-bench -am package
 *   (-Dbench.rest-parallelism=100 -Dbench.rest-requests=2000)
 * </pre>
 */
public final class RestLatencyBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        int parallelism = Integer.getInteger("bench.rest-parallelism", 100);
        int requests = Integer.getInteger("bench.rest-requests", 2_000);
        Path workDir = Files.createTempDirectory("duraflow-rest-latency-");
        // 100 x 100 hash channels: small network buffers, one per channel and subpartition, so they fit.
        LocalCluster cluster = new LocalCluster(workDir, Map.of("taskmanager.slots", Integer.toString(2 * parallelism),
                "taskmanager.network.memory", "256mb", "taskmanager.network.buffer-size", "4kb",
                "taskmanager.network.buffers-per-channel", "1", "taskmanager.network.buffers-per-subpartition", "1",
                "execution.checkpointing.dir", workDir.resolve("chk").toString()), line -> {});
        try {
            String address = cluster.start(1, 1, 0, Duration.ofSeconds(60));
            ClusterClient client = new ClusterClient(address);
            String restUrl = client.overview().getRestUrl();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            String jobId = "rest-latency";
            String submit = "{\"jobId\": \"" + jobId + "\", \"jobClass\": \"" + StreamingKeyedSum.class.getName()
                    + "\", \"parallelism\": " + parallelism + ", \"params\": {\"records\": \"0\", \"keys\": \"10001\","
                    + " \"rate\": \"20000\"}, \"config\": {\"execution.checkpointing.interval\": \"1s\"}}";
            HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(URI.create(restUrl + "/v1/jobs"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(submit))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (submitted.statusCode() != 202) {
                throw new IllegalStateException("submission refused: " + submitted.body());
            }
            HttpRequest detail = HttpRequest.newBuilder(URI.create(restUrl + "/v1/jobs/" + jobId)).GET().build();
            int subtasks = awaitAllRunning(http, detail, Duration.ofMinutes(3));
            System.out.printf("REST job detail: %d subtasks running (%s, parallelism %d), %,d requests after a"
                    + " warm-up of %,d%n", subtasks, StreamingKeyedSum.class.getSimpleName(), parallelism, requests,
                    requests / 5);
            for (int i = 0; i < requests / 5; i++) {
                http.send(detail, HttpResponse.BodyHandlers.ofByteArray());
            }
            long[] micros = new long[requests];
            long bytes = 0;
            for (int i = 0; i < requests; i++) {
                long start = System.nanoTime();
                HttpResponse<byte[]> answer = http.send(detail, HttpResponse.BodyHandlers.ofByteArray());
                micros[i] = (System.nanoTime() - start) / 1_000;
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException("GET /v1/jobs/" + jobId + " answered " + answer.statusCode());
                }
                bytes = answer.body().length;
            }
            print("REST GET /v1/jobs/" + jobId + " (" + String.format("%,d", bytes) + " bytes)", micros);
            // The same facts the CLI's 'duraflow status' gets over gRPC: what REST adds on top of it.
            for (int i = 0; i < requests; i++) {
                long start = System.nanoTime();
                client.status(jobId);
                micros[i] = (System.nanoTime() - start) / 1_000;
            }
            print("gRPC GetJobStatus (the CLI)", micros);
            // A REST request the JobManager's main thread does not answer: the HTTP server alone.
            HttpRequest document = HttpRequest.newBuilder(URI.create(restUrl + "/v1/openapi.json")).GET().build();
            for (int i = 0; i < requests; i++) {
                long start = System.nanoTime();
                http.send(document, HttpResponse.BodyHandlers.ofByteArray());
                micros[i] = (System.nanoTime() - start) / 1_000;
            }
            print("REST GET /v1/openapi.json", micros);
            System.out.printf("load average %.1f on %d cores (target: job detail p99 < 50 ms)%n",
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    Runtime.getRuntime().availableProcessors());
            http.send(HttpRequest.newBuilder(URI.create(restUrl + "/v1/jobs/" + jobId + "/cancel"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            client.close();
        } finally {
            cluster.stop();
        }
    }

    /** Polls the job's detail until every subtask runs; returns how many there are. */
    private static int awaitAllRunning(HttpClient http, HttpRequest detail, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode job = JSON.readTree(http.send(detail, HttpResponse.BodyHandlers.ofString()).body());
            int total = 0;
            int running = 0;
            for (JsonNode vertex : job.path("vertices")) {
                for (JsonNode task : vertex.path("tasks")) {
                    total++;
                    running += task.path("state").asText().equals("RUNNING") ? 1 : 0;
                }
            }
            if (total > 0 && running == total) {
                return total;
            }
            if (job.path("state").asText().matches("JOB_(FAILED|CANCELED|FINISHED)") || System.nanoTime() > deadline) {
                throw new IllegalStateException("the job did not get all its subtasks running: " + running + " of "
                        + total + " (" + job.path("state").asText() + " " + job.path("failure").asText() + ")");
            }
            Thread.sleep(200);
        }
    }

    private static void print(String what, long[] micros) {
        Arrays.sort(micros);
        System.out.printf("%-48s p50 %7.2f ms, p90 %7.2f ms, p99 %7.2f ms, max %7.2f ms%n", what,
                percentile(micros, 0.50), percentile(micros, 0.90), percentile(micros, 0.99),
                micros[micros.length - 1] / 1000.0);
    }

    private static double percentile(long[] sortedMicros, double fraction) {
        int index = (int) Math.min(sortedMicros.length - 1, Math.ceil(fraction * sortedMicros.length) - 1);
        return sortedMicros[Math.max(0, index)] / 1000.0;
    }
}

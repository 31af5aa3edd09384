package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.jobmanager.JobManagerRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rest.auth.token}: with it set, every API request but the OpenAPI document needs the
 * bearer token; without it or with a wrong one the answer is 401 and nothing changes. No
 * TaskManager runs, so a submitted batch job stays running (waiting for slots) with its event log.
 */
class RestAuthTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String TOKEN = "s3cret-token-42";

    @TempDir
    Path dir;

    private JobManagerRunner jobManager;
    private Http anonymous;
    private Http wrong;
    private Http authorized;

    @BeforeEach
    void start() throws Exception {
        jobManager = JobManagerRunner.start(Configuration.fromMap(Map.of("cluster.work-dir",
                dir.resolve("work").toString(), "jobmanager.rpc.port", "0", "rest.port", "0",
                "rest.auth.token", TOKEN, "execution.batch.job-recovery.enabled", "on")));
        anonymous = new Http(jobManager.restUrl());
        wrong = anonymous.withToken("not-the-token");
        authorized = anonymous.withToken(TOKEN);
        await().atMost(TIMEOUT).until(() -> authorized.get("/v1/jobs").status() == 200);
        assertThat(authorized.post("/v1/jobs", "{\"jobId\": \"guarded\", \"jobClass\": \"" + WordCount.class.getName()
                + "\"}").status()).isEqualTo(202);
    }

    @AfterEach
    void stop() {
        jobManager.close();
    }

    @Test
    void readsNeedTheToken() {
        for (String path : List.of("/v1/overview", "/v1/taskmanagers", "/v1/jobs", "/v1/jobs/guarded",
                "/v1/jobs/guarded/result", "/v1/jobs/guarded/events", "/v1/jobs/guarded/checkpoints", "/v1/config")) {
            Http.Answer missing = anonymous.get(path);
            assertThat(missing.status()).as(path).isEqualTo(401);
            assertThat(missing.header("WWW-Authenticate")).startsWith("Bearer");
            assertThat(missing.json().path("message").asText()).contains("needs a bearer token");
            Http.Answer refused = wrong.get(path);
            assertThat(refused.status()).as(path).isEqualTo(401);
            assertThat(refused.json().path("message").asText()).isEqualTo("wrong bearer token");
        }
        assertThat(authorized.get("/v1/jobs/guarded").json().path("state").asText()).isEqualTo("JOB_RUNNING");
    }

    @Test
    void actionsWithoutTheRightTokenChangeNothing() {
        assertThat(anonymous.post("/v1/jobs/guarded/cancel", "{}").status()).isEqualTo(401);
        assertThat(wrong.post("/v1/jobs/guarded/cancel", "{}").status()).isEqualTo(401);
        assertThat(wrong.post("/v1/jobs/guarded/savepoints", "{}").status()).isEqualTo(401);
        assertThat(wrong.post("/v1/jobs", "{\"jobId\": \"intruder\", \"jobClass\": \"" + WordCount.class.getName()
                + "\"}").status()).isEqualTo(401);
        // Not even a malformed id or body is looked at before the token.
        assertThat(anonymous.post("/v1/jobs/bad%20id/cancel", "{not json").status()).isEqualTo(401);

        assertThat(authorized.get("/v1/jobs/guarded").json().path("state").asText()).isEqualTo("JOB_RUNNING");
        assertThat(authorized.get("/v1/jobs/intruder").status()).isEqualTo(404);
        assertThat(authorized.post("/v1/jobs/guarded/cancel", "{}").status()).isEqualTo(202);
        await().atMost(TIMEOUT).until(() -> authorized.get("/v1/jobs/guarded").json().path("state").asText()
                .equals("JOB_CANCELED"));
    }

    @Test
    void theEventLogOfARunningBatchJobIsReadableWithTheToken() {
        // The log is written behind the job (buffered, flushed every job-event.store.write-buffer.flush-interval).
        Http.Answer events = await().atMost(TIMEOUT).until(() -> authorized.get("/v1/jobs/guarded/events"),
                answer -> answer.status() != 404);

        assertThat(events.status()).as(events.response().body()).isEqualTo(200);
        assertThat(events.json().path("entries").isArray()).isTrue();
        assertThat(events.json().path("lines").size()).isEqualTo(events.json().path("entries").size());
    }

    @Test
    void theConfigurationHidesTheToken() {
        Http.Answer config = authorized.get("/v1/config");

        assertThat(config.response().body()).doesNotContain(TOKEN);
        assertThat(RestApiTest.find(config.json().path("options"), "rest.auth.token").path("value").asText())
                .isEqualTo("******");
    }

    @Test
    void theOpenApiDocumentAndTheUiFilesNeedNoToken() {
        assertThat(anonymous.get("/v1/openapi.json").status()).isEqualTo(200);
        assertThat(anonymous.get("/").status()).isEqualTo(200);
        assertThat(anonymous.get("/ui/app.js").status()).isEqualTo(200);
    }
}

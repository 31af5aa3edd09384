package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.duraflow.artifact.TestJobJars;
import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.io.File;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The web UI in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * driven by Selenium) against a JobManager and a TaskManager in this JVM running a streaming job:
 * the jobs overview, the job's graph with live states and rates, the subtask table with attempt
 * numbers, the checkpoint history with its chart, the TaskManagers, the job result store, a
 * cancel from the UI, and a job submitted from a jar built here through the "Submit a job" form
 * (and the server's one-line error for an upload that holds no job). Screenshots go to
 * {@code target/ui-screenshots/} (the job page also to {@code docs/ui-job.png} with
 * {@code -Dui.screenshot.docs=true}). An integration test (failsafe, in {@code verify}); without
 * the browser or its driver it fails, saying what to install.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebUiBrowserIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String STREAMING = "ui-streaming";
    private static final String BATCH = "ui-batch";
    private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

    /**
     * A job whose classes are only in the jar built here: the numbers below {@code n} that are
     * multiples of {@code every}, collected as "multiples".
     */
    private static final String MULTIPLES = """
            package com.example.ui;

            import io.duraflow.api.DuraflowJob;
            import io.duraflow.api.JobBuilder;
            import io.duraflow.api.JobParameters;
            import io.duraflow.api.connectors.SequenceSource;

            public final class Multiples implements DuraflowJob {
                @Override
                public void build(JobBuilder job, JobParameters params) {
                    long n = params.getLong("n", 10);
                    long every = params.getLong("every", 1);
                    job.name("multiples").fromSource("numbers", new SequenceSource(0, n, 4))
                            .filter(x -> x % every == 0).collect("multiples");
                }
            }
            """;

    private static Path dir;
    private static JobManagerRunner jobManager;
    private static TaskManagerRunner taskManager;
    private static ChromeDriver browser;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        String chromium = Chromium.BINARY;
        String driver = Chromium.DRIVER;
        dir = Files.createTempDirectory("web-ui-test");
        Configuration config = Configuration.fromMap(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "rest.port", "0", "heartbeat.interval", "200ms",
                "taskmanager.slots", "8", "taskmanager.data-dir", dir.resolve("tm").toString(),
                "execution.checkpointing.dir", dir.resolve("chk").toString()));
        jobManager = JobManagerRunner.start(config);
        taskManager = TaskManagerRunner.start(config, "127.0.0.1:" + jobManager.port(), 60_000);
        http = new Http(jobManager.restUrl());
        await().atMost(TIMEOUT).until(() -> http.get("/v1/taskmanagers").json().path("taskManagers").size() == 1);
        assertThat(http.post("/v1/jobs", "{\"jobId\": \"" + BATCH + "\", \"jobClass\": \"" + WordCount.class.getName()
                + "\", \"params\": {\"words\": \"1000\"}}").status()).isEqualTo(202);
        assertThat(http.post("/v1/jobs", RestApiTest.streamingJob(STREAMING)).status()).isEqualTo(202);
        await().atMost(TIMEOUT).until(() -> http.get("/v1/jobs/" + BATCH).json().path("state").asText()
                .equals("JOB_FINISHED"));

        ChromeOptions options = new ChromeOptions().setBinary(chromium)
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1400,1000", "--user-data-dir=" + dir.resolve("chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (taskManager != null) {
            taskManager.close();
        }
        if (jobManager != null) {
            jobManager.close();
        }
    }

    /** Elements matching {@code css} now; the views are drawn anew every second, so never keep one. */
    private static List<WebElement> find(String css) {
        return browser.findElements(By.cssSelector(css));
    }

    private static String text(String css) {
        return await().atMost(TIMEOUT).ignoreExceptions().until(() -> find(css).get(0).getText(), t -> true);
    }

    private static void click(String css) {
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
            find(css).get(0).click();
            return true;
        });
    }

    private static Path screenshot(String name) throws IOException {
        Path file = SCREENSHOTS.resolve(name + ".png");
        Files.write(file, browser.getScreenshotAs(OutputType.BYTES));
        return file;
    }

    @Test
    @Order(1)
    void theJobsOverviewListsTheRunningJobAndTheFinishedOne() throws IOException {
        browser.get(jobManager.restUrl() + "/");

        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("tr[data-job-id='" + STREAMING + "'] .state")
                .get(0).getText().equals("RUNNING"));
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("tr[data-job-id='" + BATCH + "'] .state")
                .get(0).getText().equals("FINISHED"));
        assertThat(text("#stat-running")).isEqualTo("1");
        screenshot("jobs");
    }

    @Test
    @Order(2)
    void theJobsGraphShowsItsVerticesWithLiveStatesAndRates() throws IOException {
        browser.get(jobManager.restUrl() + "/");
        click("tr[data-job-id='" + STREAMING + "'] a");

        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("#dag g.dag-node").size() >= 2
                && find("#dag g.dag-node").stream().allMatch(n -> "RUNNING".equals(n.getAttribute("data-state"))));
        assertThat(find("#dag path.dag-edge")).isNotEmpty();
        // Rates come with the heartbeats after the tasks run: the graph's second line turns into "... in/s".
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("#dag g.dag-node").get(0).getText()
                .contains("out/s") && !find("#dag g.dag-node").get(0).getText().contains(" 0.0 out/s"));
        assertThat(text("#job-state")).isEqualTo("RUNNING");
        assertThat(browser.getCurrentUrl()).endsWith("#/jobs/" + STREAMING);
        Path shot = screenshot("job-graph");
        if (Boolean.getBoolean("ui.screenshot.docs")) {
            Path docs = Path.of(System.getProperty("ui.screenshot.docs.dir", "../docs"));
            Files.createDirectories(docs);
            Files.copy(shot, docs.resolve("ui-job.png"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    @Order(3)
    void theSubtaskTableShowsAttemptNumbersAndTaskManagers() throws IOException {
        browser.get(jobManager.restUrl() + "/#/jobs/" + STREAMING + "/subtasks");

        // Checked in one go per poll: a row found in one drawing is gone in the next.
        await().atMost(TIMEOUT).ignoreExceptions().untilAsserted(() -> {
            List<WebElement> rows = find("#subtasks tr[data-subtask]");
            assertThat(rows).hasSizeGreaterThanOrEqualTo(4);
            for (WebElement row : rows) {
                assertThat(row.getAttribute("data-attempt")).isEqualTo("0");
                assertThat(row.getText()).contains("#0").contains("RUNNING").contains(taskManager.taskManagerId());
            }
        });
        screenshot("job-subtasks");
    }

    @Test
    @Order(4)
    void theCheckpointHistoryHasAChartAndRows() throws IOException {
        browser.get(jobManager.restUrl() + "/#/jobs/" + STREAMING + "/checkpoints");

        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("#checkpoints tr[data-checkpoint-id]").size() >= 2
                && find("#chart canvas").size() == 1);
        assertThat(text("#checkpoints")).contains("COMPLETED");
        screenshot("job-checkpoints");
    }

    @Test
    @Order(5)
    void theTaskManagersAndTheJobResultStoreHaveTheirPages() throws IOException {
        browser.get(jobManager.restUrl() + "/#/taskmanagers");
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("tr[data-tm-id='" + taskManager.taskManagerId()
                + "']").size() == 1);
        screenshot("taskmanagers");

        browser.get(jobManager.restUrl() + "/#/results");
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("tr[data-job-id='" + BATCH + "'] .state").get(0)
                .getText().equals("FINISHED"));
        screenshot("results");
    }

    @Test
    @Order(6)
    void aJobCancelledFromTheUiEndsCanceled() throws IOException {
        browser.get(jobManager.restUrl() + "/#/jobs/" + STREAMING);
        click("#cancel-job");
        click("#cancel-confirm");

        await().atMost(TIMEOUT).ignoreExceptions().until(() -> "CANCELED".equals(find("#job-state").get(0)
                .getAttribute("data-state")));
        assertThat(http.get("/v1/jobs/" + STREAMING).json().path("state").asText()).isEqualTo("JOB_CANCELED");
        assertThat(find("#cancel-job")).isEmpty();
        screenshot("job-canceled");
    }

    /** Opens the form on a freshly loaded page and picks {@code file} as the jar. */
    private static void openSubmitForm(Path file) {
        browser.get(jobManager.restUrl() + "/");
        click("#submit-open");
        browser.findElement(By.id("submit-jar")).sendKeys(file.toAbsolutePath().toString());
    }

    private static int jobCount() {
        return http.get("/v1/jobs").json().path("jobs").size();
    }

    @Test
    @Order(7)
    void aJobSubmittedFromItsJarInTheFormRunsAndFinishesWithItsResult() throws IOException {
        Path jar = TestJobJars.jar(dir.resolve("multiples.jar")).source("com.example.ui.Multiples", MULTIPLES).build();
        openSubmitForm(jar);
        browser.findElement(By.id("submit-params")).sendKeys("n=1000\nevery = 7\n");
        WebElement parallelism = browser.findElement(By.id("submit-parallelism"));
        parallelism.clear();
        parallelism.sendKeys("2");
        click("#submit-send");

        // The form closes and the UI goes to the new job's page, its id given by the server.
        String jobId = URLDecoder.decode(await().atMost(TIMEOUT).until(browser::getCurrentUrl,
                url -> url.contains("#/jobs/")).replaceFirst(".*#/jobs/", ""), StandardCharsets.UTF_8);
        assertThat(browser.findElement(By.id("submit-form")).isDisplayed()).isFalse();
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> find("h1").get(0).getText(),
                h1 -> h1.contains("multiples") && h1.contains(jobId));
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> "FINISHED".equals(find("#job-state").get(0)
                .getAttribute("data-state")));
        screenshot("job-submitted-from-jar");

        // 0, 7, ..., 994: 143 numbers, over the 2 subtasks asked for.
        JsonNode result = http.get("/v1/jobs/" + jobId + "/result").json();
        assertThat(result.path("status").path("state").asText()).isEqualTo("JOB_FINISHED");
        assertThat(result.path("params").path("n").asText()).isEqualTo("1000");
        assertThat(result.path("params").path("every").asText()).isEqualTo("7");
        List<JsonNode> collected = StreamSupport.stream(result.path("collected").spliterator(), false).toList();
        assertThat(collected).allSatisfy(c -> assertThat(c.path("name").asText()).isEqualTo("multiples"));
        assertThat(collected).extracting(c -> c.path("subtask").asInt()).containsExactlyInAnyOrder(0, 1);
        assertThat(collected.stream().mapToLong(c -> c.path("records").asLong()).sum()).isEqualTo(143);
        assertThat(result.path("status").path("vertices").findValues("parallelism")).isNotEmpty()
                .allSatisfy(p -> assertThat(p.asInt()).isEqualTo(2));
    }

    @Test
    @Order(8)
    void anUploadThatHoldsNoJobShowsTheServersOneLineErrorAndSubmitsNothing() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a jar\n");
        Path noJob = TestJobJars.jar(dir.resolve("util.jar"))
                .source("com.example.ui.Util", TestJobJars.versionedSource("com.example.ui.Util", "1")).build();
        int jobs = jobCount();

        for (Map.Entry<Path, String> upload : List.of(Map.entry(text, "notes.txt is not a jar: "), Map.entry(noJob,
                "jar util.jar holds no job: no public class in it implements io.duraflow.api.DuraflowJob"))) {
            openSubmitForm(upload.getKey());
            click("#submit-send");

            String error = await().atMost(TIMEOUT).ignoreExceptions().until(
                    () -> browser.findElement(By.id("submit-error")).getText(), t -> !t.isEmpty());
            assertThat(error).startsWith(upload.getValue()).doesNotContain("\n").doesNotContain(dir.toString())
                    .doesNotContain("duraflow-jar-uploads");
            assertThat(browser.findElement(By.id("submit-form")).isDisplayed()).isTrue();
            assertThat(browser.findElement(By.id("submit-send")).isEnabled()).isTrue();
            assertThat(browser.getCurrentUrl()).doesNotContain("#/jobs/");
            screenshot("submit-error-" + upload.getKey().getFileName());
        }
        assertThat(jobCount()).isEqualTo(jobs);
    }
}

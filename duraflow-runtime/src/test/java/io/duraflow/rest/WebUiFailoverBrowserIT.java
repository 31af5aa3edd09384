package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.duraflow.config.Configuration;
import io.duraflow.examples.RecoveryDemo;
import io.duraflow.ha.ZooKeeperServerExtension;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The recovery timeline in a real headless Chromium: a batch job (RecoveryDemo, its sources in
 * waves on two slots) runs under ZooKeeper high availability; once some sources finished, the
 * leader JobManager goes away and the standby takes the job over. Its page shows the failover in
 * the timeline with the finished sources kept and the others run again. Screenshot:
 * {@code target/ui-screenshots/recovery-timeline.png}. An integration test (failsafe, in
 * {@code verify}); without chromium it fails, saying what to install.
 */
class WebUiFailoverBrowserIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String JOB = "ui-failover";

    @TempDir
    Path dir;

    private ZooKeeperServerExtension zooKeeper;
    private JobManagerRunner first;
    private JobManagerRunner second;
    private TaskManagerRunner taskManager;
    private ChromeDriver browser;

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (taskManager != null) {
            taskManager.close();
        }
        for (JobManagerRunner runner : new JobManagerRunner[] {first, second}) {
            if (runner != null) {
                runner.close();
            }
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void theTimelineShowsTheFailoverWithKeptAndRerunTasks() throws Exception {
        Chromium.require();
        String chromium = Chromium.BINARY;
        String driver = Chromium.DRIVER;
        zooKeeper = new ZooKeeperServerExtension(dir.resolve("zk"));
        Configuration config = Configuration.fromMap(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "rest.port", "0", "heartbeat.interval", "200ms",
                "high-availability.type", "zookeeper", "high-availability.zookeeper.quorum",
                zooKeeper.connectString(), "high-availability.storage-dir", dir.resolve("ha").toString(),
                "taskmanager.slots", "2", "taskmanager.data-dir", dir.resolve("tm").toString()));
        first = JobManagerRunner.start(config);
        Http atFirst = new Http(first.restUrl());
        await().atMost(TIMEOUT).until(() -> atFirst.get("/v1/overview").status() == 200);
        second = JobManagerRunner.start(config);
        taskManager = TaskManagerRunner.start(config, "", 60_000);
        await().atMost(TIMEOUT).until(() -> atFirst.get("/v1/overview").json().path("taskManagers").asInt() == 1);

        assertThat(atFirst.post("/v1/jobs", "{\"jobId\": \"" + JOB + "\", \"jobClass\": \""
                + RecoveryDemo.class.getName() + "\", \"params\": {\"records\": \"16000000\", \"sources\": \"8\"}}")
                .status()).isEqualTo(202);
        // Some sources finished, others did not: the moment to lose the leader.
        await().atMost(TIMEOUT).until(() -> finishedSources(atFirst), finished -> finished >= 2);
        first.close();
        first = null;

        Http atSecond = new Http(second.restUrl());
        await().atMost(TIMEOUT).until(() -> atSecond.get("/v1/jobs/" + JOB).json().path("takenOverAtMs").asLong() > 0);
        var takenOver = atSecond.get("/v1/jobs/" + JOB).json();
        assertThat(takenOver.path("leaderElectedAtMs").asLong()).as("elected, then took the job over")
                .isPositive().isLessThanOrEqualTo(takenOver.path("takenOverAtMs").asLong());
        startBrowser(chromium, driver);
        browser.get(second.restUrl() + "/#/jobs/" + JOB + "/recovery");
        // The page may open while the job still runs or after it ended (a fast machine): both show it.
        showsTheFailover();
        assertThat(browser.findElement(By.id("timeline")).getText()).contains("JobManager failover");
        assertThat(browser.findElement(By.id("takeover-ms")).getText()).as("how long the take-over took")
                .matches("[\\d,.]+");
        Files.createDirectories(Path.of("target", "ui-screenshots"));
        Files.write(Path.of("target", "ui-screenshots", "recovery-timeline.png"),
                browser.getScreenshotAs(OutputType.BYTES));
        await().atMost(TIMEOUT).until(() -> atSecond.get("/v1/jobs/" + JOB).json().path("state").asText()
                .equals("JOB_FINISHED"));

        // Once the job ended its event log is cleaned up; what the take-over kept is still shown.
        browser.navigate().refresh();
        showsTheFailover();
        await().atMost(TIMEOUT).ignoreExceptions()
                .until(() -> browser.findElement(By.id("view")).getText().contains("no event log for job"));
    }

    /**
     * The failover entry with at least the 2 finished sources kept, the sources that ran at the
     * failover adopted (the TaskManager kept them running), and the others run.
     */
    private void showsTheFailover() {
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> browser.findElements(By.id("failover")).size() == 1
                && Integer.parseInt(browser.findElement(By.id("kept-count")).getText()) >= 2
                && Integer.parseInt(browser.findElement(By.id("adopted-count")).getText()) >= 1
                && Integer.parseInt(browser.findElement(By.id("again-count")).getText()) >= 1);
    }

    /** Finished subtasks of the job's first vertex (its sources), or -1 if the job is not running there. */
    private static int finishedSources(Http http) {
        JsonNode job = http.get("/v1/jobs/" + JOB).json();
        if (!job.path("state").asText().equals("JOB_RUNNING")) {
            return -1;
        }
        int finished = job.path("vertices").get(0).path("finished").asInt();
        if (finished == job.path("vertices").get(0).path("parallelism").asInt()) {
            throw new IllegalStateException("every source finished before the failover; the test needs a slower job");
        }
        return finished;
    }

    private void startBrowser(String chromium, String driver) {
        ChromeOptions options = new ChromeOptions().setBinary(chromium)
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1400,1000", "--user-data-dir=" + dir.resolve("chromium"));
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
                .usingAnyFreePort().build(), options);
    }
}

package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.artifact.JobJar;
import io.duraflow.api.types.Tuple2;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs run from their jars ({@code duraflow run app.jar}) on real processes: the jar is built
 * while the test runs, so its classes are on no cluster process's class path; two versions of one
 * class run side by side; the stored jar goes with the job's cleanup; a bad jar is a one-line error.
 */
class JobJarsIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path tempDir;

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2, Map.of());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The lines {@code run --show} prints for numbers 0..n-1 counted by {@code x % modulus}. */
    private static List<String> expectedCounts(long n, int modulus) {
        Map<Long, Long> counts = new HashMap<>();
        for (long x = 0; x < n; x++) {
            counts.merge(x % modulus, 1L, Long::sum);
        }
        List<Object> records = new ArrayList<>();
        counts.forEach((bucket, count) -> records.add(Tuple2.of(bucket, count)));
        return ExactResults.sortedStrings(records);
    }

    private static List<String> printedCounts(Cli.Result run, int records) {
        List<String> lines = run.stdout().lines().toList();
        int header = lines.indexOf("  counts: " + records + " records");
        assertThat(header).as("result header in %s", run).isNotNegative();
        return lines.subList(header + 1, header + 1 + records).stream().map(String::trim).toList();
    }

    @Test
    void aJobFromItsJarRunsAndItsStoredJarGoesWithTheJobsCleanup() throws Exception {
        Path jar = TestJars.build(tempDir.resolve("count-by-bucket.jar"), TestJars.countByBucket(7), Map.of());
        String sha256 = JobJar.sha256(jar);

        Cli.Result run = Cli.run(LOGS.watch(tempDir), TIMEOUT, "run", jar.toString(), "--jobmanager", cluster.address(),
                "--param", "n=10000", "--parallelism", "2", "--show", "100");

        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.stdout()).as("%s", run).contains("Uploading count-by-bucket.jar");
        assertThat(printedCounts(run, 7)).isEqualTo(expectedCounts(10_000, 7));
        await("the stored jar is deleted by the job's cleanup").atMost(TIMEOUT)
                .until(() -> storedCopies(sha256).isEmpty());

        // Its result stays readable; its records decode with the job's classes from the jar.
        java.util.regex.Matcher submitted = java.util.regex.Pattern.compile("Submitted job (\\w+)").matcher(run.stdout());
        assertThat(submitted.find()).as("%s", run).isTrue();
        String jobId = submitted.group(1);
        Cli.Result withoutJar = Cli.run(LOGS.watch(tempDir), TIMEOUT, "result", jobId, "--jobmanager", cluster.address());
        assertThat(withoutJar.exitCode()).as("%s", withoutJar).isZero();
        assertThat(withoutJar.stdout()).contains("jar:       count-by-bucket.jar (sha256 " + sha256 + ")")
                .contains("add --jar count-by-bucket.jar");
        Cli.Result withJar = Cli.run(LOGS.watch(tempDir), TIMEOUT, "result", jobId, "--jobmanager", cluster.address(),
                "--jar", jar.toString(), "--show", "100");
        assertThat(withJar.exitCode()).as("%s", withJar).isZero();
        assertThat(printedCounts(withJar, 7)).isEqualTo(expectedCounts(10_000, 7));
        Path other = TestJars.build(tempDir.resolve("other.jar"), TestJars.countByBucket(3), Map.of());
        assertOneLineError(new String[] {"result", jobId, "--jar", other.toString()}, "jar " + other
                + " is not the one job " + jobId + " was submitted from (count-by-bucket.jar, sha256 " + sha256
                + "): pass that jar with --jar");
    }

    @Test
    void runEmbeddedRunsAJobFromItsJarOnAClusterInsideTheCommand() throws Exception {
        Path jar = TestJars.build(tempDir.resolve("embedded.jar"), TestJars.countByBucket(11), Map.of());

        Cli.Result run = Cli.run(LOGS.watch(tempDir), TIMEOUT, "run", "--embedded", jar.toString(), "--param", "n=5000",
                "--parallelism", "2", "--show", "100");

        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(printedCounts(run, 11)).isEqualTo(expectedCounts(5_000, 11));
    }

    @Test
    void twoJobsWhoseJarsHoldDifferentVersionsOfAClassRunSideBySide() throws Exception {
        Path sevens = TestJars.build(tempDir.resolve("sevens.jar"), TestJars.countByBucket(7), Map.of());
        Path fives = TestJars.build(tempDir.resolve("fives.jar"), TestJars.countByBucket(5), Map.of());

        Cli.Running first = Cli.start(LOGS.watch(tempDir), "run", sevens.toString(), "--jobmanager", cluster.address(),
                "--param", "n=200000", "--show", "100");
        Cli.Running second = Cli.start(LOGS.watch(tempDir), "run", fives.toString(), "--jobmanager", cluster.address(),
                "--param", "n=200000", "--show", "100");
        Cli.Result seven = first.await(TIMEOUT);
        Cli.Result five = second.await(TIMEOUT);

        assertThat(seven.exitCode()).as("%s", seven).isZero();
        assertThat(five.exitCode()).as("%s", five).isZero();
        assertThat(printedCounts(seven, 7)).isEqualTo(expectedCounts(200_000, 7));
        assertThat(printedCounts(five, 5)).isEqualTo(expectedCounts(200_000, 5));
    }

    @Test
    void aJarThatIsMissingOrNoJarOrHoldsNoOrSeveralJobsOrWhoseJobFailsToBuildIsAOneLineError() throws Exception {
        Path notAJar = Files.writeString(tempDir.resolve("notes.jar"), "not a zip");
        Path twoJobs = TestJars.build(tempDir.resolve("two-jobs.jar"), Map.of(
                "com.example.two.First", job("First", ""), "com.example.two.Second", job("Second", "")), Map.of());
        Path throwing = TestJars.build(tempDir.resolve("throwing.jar"), Map.of("com.example.bad.Throwing",
                job("Throwing", "if (params != null) { throw new IllegalStateException(\"no input configured\"); }").replace("two", "bad")),
                Map.of());

        assertOneLineError(new String[] {"run", tempDir.resolve("missing.jar").toString()},
                "jar " + tempDir.resolve("missing.jar") + " does not exist: check the path");
        assertOneLineError(new String[] {"run", notAJar.toString()}, notAJar + " is not a jar: ");
        assertOneLineError(new String[] {"run", twoJobs.toString()}, "jar two-jobs.jar holds 2 jobs"
                + " (com.example.two.First, com.example.two.Second): choose one with --class");
        assertOneLineError(new String[] {"run", twoJobs.toString(), "--class", "com.example.two.Nope"},
                "class com.example.two.Nope (from --class) is not in jar two-jobs.jar");
        assertOneLineError(new String[] {"run", throwing.toString()}, "job com.example.bad.Throwing in jar throwing.jar"
                + " failed to build its plan: java.lang.IllegalStateException: no input configured");
        assertThat(cluster.client().list().getJobsList()).as("nothing was submitted").noneMatch(job ->
                job.getJobClass().startsWith("com.example.two") || job.getJobClass().startsWith("com.example.bad"));
    }

    @Test
    void aJarPostedToTheRestApiRunsAndABadOneIsA400NamingIt() throws Exception {
        Path jar = TestJars.build(tempDir.resolve("rest-upload.jar"), TestJars.countByBucket(3), Map.of());
        String rest = cluster.client().overview().getRestUrl();
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        String submission = java.net.URLEncoder.encode("{\"jobId\":\"rest-jar\",\"params\":{\"n\":\"999\"}}",
                java.nio.charset.StandardCharsets.UTF_8);

        var accepted = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(rest + "/v1/jobs?submission="
                        + submission + "&fileName=rest-upload.jar")).header("Content-Type", "application/java-archive")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofFile(jar)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        var result = cluster.awaitResult("rest-jar", TIMEOUT);
        assertThat(result.getStatus().getState()).as(result.getStatus().getFailure())
                .isEqualTo(io.duraflow.rpc.proto.JobState.JOB_FINISHED);
        assertThat(result.getStatus().getJobClass()).isEqualTo("com.example.app.CountByBucket");

        var refused = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(rest + "/v1/jobs?fileName=x.jar"))
                .header("Content-Type", "application/java-archive")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("not a jar")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(refused.body()).contains("\"field\":\"jar\"").contains("x.jar is not a jar");
    }

    private static String job(String name, String body) {
        return """
                package com.example.two;

                public final class NAME implements io.duraflow.api.DuraflowJob {
                    @Override
                    public void build(io.duraflow.api.JobBuilder job, io.duraflow.api.JobParameters params) {
                        BODY
                        job.fromSource("n", new io.duraflow.api.connectors.SequenceSource(0, 10, 1)).collect("all");
                    }
                }
                """.replace("NAME", name).replace("BODY", body);
    }

    private static void assertOneLineError(String[] args, String message) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--jobmanager", cluster.address()));
        Cli.Result run = Cli.run(LOGS.watch(tempDir), TIMEOUT, all.toArray(new String[0]));
        assertThat(run.exitCode()).as("%s", run).isNotZero();
        assertThat(run.stderrLines()).as("%s", run).singleElement().asString().startsWith("duraflow: " + message);
    }

    /** Copies of the jar the cluster stored (in its HA storage or local directories). */
    private static List<Path> storedCopies(String sha256) throws IOException {
        try (Stream<Path> files = Files.walk(tempDir.resolve("cluster"))) {
            return files.filter(file -> file.getFileName().toString().contains(sha256)).toList();
        }
    }
}

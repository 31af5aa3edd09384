package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/quickstart} as a new user takes it, offline: Duraflow's API and test support
 * installed into the local Maven repository ({@code ./mvnw install}), the project's own build
 * (whose test runs the job on a cluster inside it), and its jar run on a local cluster with
 * {@code duraflow run}.
 */
class QuickstartIT {
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path QUICKSTART = ROOT.resolve("examples/quickstart");

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void theQuickstartBuildsItsTestsPassAndItsJarRunsOnALocalCluster() throws Exception {
        Path logs = Files.createDirectories(Path.of("target", "quickstart"));
        maven(ROOT, logs.resolve("install.log"), "install", "-DskipTests", "-pl", "duraflow-api,duraflow-test", "-am");
        maven(QUICKSTART, logs.resolve("build.log"), "verify");
        Path jar = QUICKSTART.resolve("target/order-totals-1.0.jar");
        assertThat(jar).exists();

        Path output = tempDir.resolve("totals");
        try (TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1, Map.of())) {
            Cli.Result run = Cli.run(LOGS.watch(tempDir), Duration.ofMinutes(2), "run", jar.toString(), "--jobmanager",
                    cluster.address(), "--param", "orders=10000", "--param", "customers=20", "--param",
                    "output=" + output, "-D", "execution.runtime-mode=streaming", "-D",
                    "execution.checkpointing.interval=200ms", "-D",
                    "execution.checkpointing.dir=" + tempDir.resolve("checkpoints").toUri());
            assertThat(run.exitCode()).as("%s", run).isZero();
        }
        List<String> lines = new ArrayList<>();
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(output, "part-*")) {
            for (Path part : parts) {
                lines.addAll(Files.readAllLines(part));
            }
        }
        assertThat(lines).as("one running total per order").hasSize(10_000).doesNotHaveDuplicates();
    }

    /** Runs the Maven wrapper offline in {@code dir}; its output goes to {@code log}. */
    private static void maven(Path dir, Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "-o", "-q", "-B"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " in " + dir + " took longer than " + BUILD_TIMEOUT);
        }
        assertThat(process.exitValue()).as("%s in %s failed:\n%s", String.join(" ", command), dir,
                Files.readString(log)).isZero();
    }
}

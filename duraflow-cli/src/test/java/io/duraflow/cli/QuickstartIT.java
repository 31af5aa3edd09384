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
 * {@code examples/quickstart} as a new user takes it: Duraflow's API and test support in the local
 * Maven repository (as {@code ./mvnw install} puts them there), the project's own build, offline
 * (its test runs the job on a cluster inside it), and its jar run on a local cluster with
 * {@code duraflow run}.
 *
 * <p>The modules this build made are installed from copies of their jars and poms, with
 * {@code install:install-file} (one Maven run for all of them): a nested {@code install} of the
 * reactor would rebuild class directories that the other integration tests' processes load
 * classes from while they run.
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
        installThisBuild(logs);
        maven(QUICKSTART, logs.resolve("build.log"), "-o", "verify");
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

    /**
     * The parent pom and the modules the quickstart needs, from copies, into the local repository:
     * one {@code install-file} execution per artifact in a pom of their own, so that one Maven run
     * installs them all (one run per artifact took five Maven starts, 11-16 s each under load).
     */
    private void installThisBuild(Path logs) throws IOException, InterruptedException {
        Path copies = Files.createDirectories(tempDir.resolve("install"));
        StringBuilder executions = new StringBuilder();
        Path parent = Files.copy(ROOT.resolve("pom.xml"), copies.resolve("duraflow-parent.pom"));
        executions.append(installFile("duraflow-parent", parent, parent));
        for (String module : List.of("duraflow-api", "duraflow-core", "duraflow-runtime", "duraflow-test")) {
            Path pom = Files.copy(ROOT.resolve(module).resolve("pom.xml"), copies.resolve(module + ".pom"));
            Path jar = Files.copy(ROOT.resolve(module).resolve("target").resolve(module + "-" + VERSION + ".jar"),
                    copies.resolve(module + ".jar"));
            executions.append(installFile(module, jar, pom));
        }
        Files.writeString(copies.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>io.duraflow.quickstart-it</groupId>
                  <artifactId>install-this-build</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-install-plugin</artifactId>
                        <version>%s</version>
                        <executions>
                %s        </executions>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(INSTALL_PLUGIN_VERSION, executions));
        maven(copies, logs.resolve("install.log"), "validate");
    }

    /** An execution of install-file for {@code file} with {@code pom}, in the validate phase. */
    private static String installFile(String id, Path file, Path pom) {
        return """
                          <execution>
                            <id>%s</id>
                            <phase>validate</phase>
                            <goals><goal>install-file</goal></goals>
                            <configuration>
                              <file>%s</file>
                              <pomFile>%s</pomFile>
                            </configuration>
                          </execution>
                """.formatted(id, file, pom);
    }

    private static final String INSTALL_PLUGIN_VERSION = "3.1.4";
    private static final String VERSION = "0.1.0-SNAPSHOT";

    /** Runs the Maven wrapper in {@code dir}; its output goes to {@code log}. */
    private static void maven(Path dir, Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "-q", "-B"));
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

package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/duraflow} as users run it, from a copy of the launcher next to the build's jars (a
 * link to {@code duraflow-cli/target/lib}), so its class-data archive goes to a directory of the
 * test's own: the first {@code run --embedded} records the archive the command's later JVMs map,
 * and a recording cut short leaves nothing a later JVM would refuse.
 */
class LauncherIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path home;

    private Path launcher;
    private Path target;

    @BeforeEach
    void copyTheLauncher() throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        launcher = Files.copy(ROOT.resolve("bin/duraflow"), bin.resolve("duraflow"));
        target = Files.createDirectories(home.resolve("duraflow-cli/target"));
        Files.createSymbolicLink(target.resolve("lib"), ROOT.resolve("duraflow-cli/target/lib"));
    }

    private ProcessBuilder command(String... args) {
        ProcessBuilder builder = new ProcessBuilder(Stream.concat(Stream.of(launcher.toString()), Stream.of(args)).toList())
                .redirectErrorStream(true);
        builder.environment().remove("DURAFLOW_CDS");
        return builder;
    }

    private String run(Path output, String... args) throws Exception {
        Process process = command(args).redirectOutput(output.toFile()).start();
        assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
        String printed = Files.readString(output);
        assertThat(process.exitValue()).as(printed).isZero();
        return printed;
    }

    private List<String> files(String glob) throws IOException {
        try (var files = Files.newDirectoryStream(target, glob)) {
            return java.util.stream.StreamSupport.stream(files.spliterator(), false)
                    .map(f -> f.getFileName().toString()).toList();
        }
    }

    /** The JIT tier limit {@code bin/duraflow} gives a command's JVM, as {@code -XX:+PrintFlagsFinal} shows it. */
    private String tierLimit(String... args) throws Exception {
        ProcessBuilder builder = command(args);
        builder.environment().put("DURAFLOW_CDS", "off");
        builder.environment().put("DURAFLOW_JAVA_OPTS", "-XX:+PrintFlagsFinal");
        Process process = builder.start();
        String printed = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("TieredStopAtLevel\\s+=\\s+(\\d)")
                .matcher(printed);
        assertThat(matcher.find()).as(printed).isTrue();
        return matcher.group(1);
    }

    /**
     * Short commands start fastest on C1 alone; a JobManager or TaskManager runs for hours, and its
     * tasks need the optimizing compiler.
     */
    @Test
    void serversGetTheOptimizingCompilerAndShortCommandsC1Only() throws Exception {
        assertThat(tierLimit("taskmanager", "--help")).isEqualTo("4");
        assertThat(tierLimit("jobmanager", "--help")).isEqualTo("4");
        assertThat(tierLimit("list", "--help")).isEqualTo("1");
    }

    @Test
    void theFirstEmbeddedRunRecordsTheArchiveThatLaterCommandsMap() throws Exception {
        String first = run(home.resolve("first.out"), "run", "--embedded", "wordcount", "--param", "words=1000",
                "--show", "0");
        assertThat(first).contains("FINISHED").contains("counts: 1,000 records");
        assertThat(files("duraflow-cli-*.jsa")).hasSize(1);
        assertThat(files("*.tmp")).isEmpty();

        // A later command maps it: most of its classes come from the archive, not the jars.
        ProcessBuilder second = command("run", "--embedded", "wordcount", "--param", "words=1000", "--show", "0");
        Path classes = home.resolve("classes.log");
        second.environment().put("DURAFLOW_JAVA_OPTS", "-Xlog:class+load:file=" + classes);
        Process process = second.redirectOutput(home.resolve("second.out").toFile()).start();
        assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(Files.readString(home.resolve("second.out"))).isZero();
        List<String> loaded = Files.readAllLines(classes);
        long fromArchive = loaded.stream().filter(l -> l.contains("source: shared objects file (top)")).count();
        assertThat(fromArchive).as("classes mapped from the command's archive").isGreaterThan(loaded.size() / 2);
        assertThat(files("duraflow-cli-*.jsa")).hasSize(1);
    }

    @Test
    void aRecordingCutShortIsNeverKeptAndTheCommandStopsWithTheLauncher() throws Exception {
        Path output = home.resolve("run.out");
        Process launcherProcess = command("run", "--embedded", "wordcount", "--param", "words=2000000000", "--show", "0")
                .redirectOutput(output.toFile()).start();
        // The job runs (the JVM recording the archive is the launcher's child) when the launcher is told to stop.
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(output).contains("RUNNING"));
        List<ProcessHandle> jvms = launcherProcess.children().toList();
        assertThat(jvms).hasSize(1);
        assertThat(files("*.tmp")).isEmpty(); // written only as the JVM exits

        launcherProcess.destroy(); // SIGTERM to the launcher, as a service manager or a test harness sends it
        assertThat(launcherProcess.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> !jvms.get(0).isAlive());
        assertThat(launcherProcess.exitValue()).isNotZero();
        assertThat(files("duraflow-cli-*.jsa")).isEmpty();
        assertThat(files("*.tmp")).isEmpty();
    }
}

package io.duraflow.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Flink's side of {@link KafkaBenchmark}: {@code FlinkKafkaKeyedCount} in a JVM of its own (its
 * MiniCluster runs there, so its CPU time is Flink's alone), driven by one command a line on its
 * standard input; it answers on its standard output with a line starting {@value #REPLY}, and
 * every other line it prints is passed on. Flink's JVM gets this JVM's class path less Duraflow's
 * rocksdbjni (as {@link NexmarkBenchmark}'s) and with the kafka-clients of flink-connector-kafka
 * instead of Duraflow's ({@link #kafkaClients()}).
 *
 * <pre>
 *   bounded JOB INPUT OUTPUT PREFIX   ->  @done JOB figures      (figures: {@link KafkaRun#line})
 *   start JOB INPUT OUTPUT PREFIX     ->  @started JOB           (after its first completed checkpoint)
 *   cancel JOB                        ->  @cancelled JOB figures
 *   exit                              ->  (the JVM ends)
 * </pre>
 *
 * A command that fails makes Flink's JVM print the failure and exit non-zero.
 */
final class FlinkKafkaRuns implements KafkaEngine {
    static final String FLINK_MAIN = "io.duraflow.bench.flink.FlinkKafkaKeyedCount";
    static final String REPLY = "@";
    /** The directory of the kafka-clients jar for Flink's JVM. */
    static final String KAFKA_CLIENTS_PROPERTY = "kafka.flink-kafka-clients";

    private final Process process;
    private final PrintWriter commands;
    private final BufferedReader replies;
    private final Path workDir;

    private FlinkKafkaRuns(Process process, Path workDir) {
        this.process = process;
        this.workDir = workDir;
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Whether the {@code flink} profile compiled Flink's side into this class path. */
    static boolean built() {
        return ClassLoader.getSystemResource(FLINK_MAIN.replace('.', '/') + ".class") != null;
    }

    /** Starts Flink's JVM with its MiniCluster; {@code jvmOptions} are added (may be empty). */
    static FlinkKafkaRuns start(String bootstrap, int parallelism, String jvmOptions) throws IOException {
        Path workDir = Files.createTempDirectory("flink-kafka-bench-");
        List<String> classPath = new ArrayList<>(kafkaClients());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean kafkaClients = Path.of(entry).getFileName().toString().startsWith("kafka-clients-");
            if (!entry.contains("/org/rocksdb/") && !kafkaClients) {
                classPath.add(entry);
            }
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx2g"));
        if (!jvmOptions.isBlank()) {
            command.addAll(List.of(jvmOptions.trim().split(" +")));
        }
        command.addAll(List.of("-Dlogback.configurationFile=bench-logback.xml", "-cp",
                String.join(File.pathSeparator, classPath), FLINK_MAIN, bootstrap, Integer.toString(parallelism),
                workDir.toString()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new FlinkKafkaRuns(process, workDir);
    }

    /**
     * The kafka-clients jar of {@value #KAFKA_CLIENTS_PROPERTY}: the version flink-connector-kafka was
     * built with. Its sink calls kafka-clients internals (TransactionalRequestResult.await()) that the
     * version Duraflow uses no longer has, so Flink's JVM gets this one instead.
     */
    private static List<String> kafkaClients() throws IOException {
        Path dir = Path.of(System.getProperty(KAFKA_CLIENTS_PROPERTY, "target/flink-kafka-clients"));
        List<String> jars = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                files.filter(f -> f.getFileName().toString().startsWith("kafka-clients-")).map(Path::toString)
                        .forEach(jars::add);
            }
        }
        if (jars.size() != 1) {
            throw new IllegalStateException("no single kafka-clients jar for Flink's JVM in " + dir.toAbsolutePath()
                    + " but " + jars + "; the flink profile copies it there (./mvnw -Pbench,flink ... package)");
        }
        return jars;
    }

    @Override
    public String name() {
        return "flink 2.3.0";
    }

    @Override
    public KafkaRun runBounded(String jobName, String input, String output, String prefix) throws IOException {
        return KafkaRun.parse(ask("bounded " + jobName + " " + input + " " + output + " " + prefix, "done " + jobName));
    }

    @Override
    public void start(String jobName, String input, String output, String prefix) throws IOException {
        ask("start " + jobName + " " + input + " " + output + " " + prefix, "started " + jobName);
    }

    @Override
    public KafkaRun cancel(String jobName) throws IOException {
        return KafkaRun.parse(ask("cancel " + jobName, "cancelled " + jobName));
    }

    /** Sends a command and returns the rest of its reply, which must start with {@code expected}. */
    private String ask(String command, String expected) throws IOException {
        commands.println(command);
        for (String line; (line = replies.readLine()) != null; ) {
            if (!line.startsWith(REPLY)) {
                System.out.println(line);
                continue;
            }
            String reply = line.substring(REPLY.length());
            if (!reply.startsWith(expected)) {
                throw new IllegalStateException("Flink's JVM answered '" + line + "' to '" + command + "'");
            }
            return reply.substring(expected.length()).trim();
        }
        throw new IllegalStateException("Flink's JVM ended (exit code " + exitCode() + ") on '" + command
                + "' (see the output above)");
    }

    private String exitCode() {
        try {
            return process.waitFor(30, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none yet";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    @Override
    public void close() throws Exception {
        try {
            commands.println("exit");
            for (String line; (line = replies.readLine()) != null; ) {
                System.out.println(line);
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                System.out.println("flink: its JVM did not exit within 60 s of 'exit'; killed");
            }
        } finally {
            process.destroyForcibly();
            StateBackendBenchmark.deleteRecursively(workDir);
        }
    }
}

package io.duraflow.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs the {@code duraflow} command line as a child process, as a user would. */
public final class Cli {
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** What a finished command left behind. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr) {
        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        @Override
        public String toString() {
            return "duraflow " + String.join(" ", command) + "\n  exit code " + exitCode + "\n  stdout:\n"
                    + indent(stdout) + "\n  stderr:\n" + indent(stderr);
        }

        private static String indent(String text) {
            return text.lines().map(line -> "    " + line).reduce((a, b) -> a + "\n" + b).orElse("    (empty)");
        }
    }

    private Cli() {}

    /**
     * Runs {@code duraflow <args>} in {@code workingDir}, keeping its output in
     * {@code workingDir/log/cli-N.out} and {@code .err}, and waits at most {@code timeout}; a
     * command still running then is killed and fails the test.
     */
    public static Result run(Path workingDir, Duration timeout, String... args) throws IOException, InterruptedException {
        return start(workingDir, args).await(timeout);
    }

    /** Starts {@code duraflow <args>} like {@link #run} but returns at once; {@link Running#await} waits for it. */
    static Running start(Path workingDir, String... args) throws IOException {
        int run = RUNS.incrementAndGet();
        Path logs = Files.createDirectories(workingDir.resolve("log"));
        Path stdout = logs.resolve("cli-" + run + ".out");
        Path stderr = logs.resolve("cli-" + run + ".err");
        Process process = ChildJvm.track(new ProcessBuilder(ChildJvm.command(ChildJvm.CLIENT_OPTIONS, List.of(args)))
                .directory(workingDir.toFile()).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start());
        return new Running(List.of(args), process, stdout, stderr);
    }

    /** A command started by {@link #start}. */
    static final class Running {
        private final List<String> args;
        private final Process process;
        private final Path stdout;
        private final Path stderr;

        private Running(List<String> args, Process process, Path stdout, Path stderr) {
            this.args = args;
            this.process = process;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        /**
         * Waits at most {@code timeout} for the command to end; a command still running then is
         * killed and fails the test.
         */
        Result await(Duration timeout) throws IOException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("'duraflow " + String.join(" ", args) + "' did not end within " + timeout
                        + "; stdout:\n" + ChildJvm.tail(stdout, 40) + "\nstderr:\n" + ChildJvm.tail(stderr, 40));
            }
            return new Result(args, process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        }
    }
}

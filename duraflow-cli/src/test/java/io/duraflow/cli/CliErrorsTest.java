package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * What a user sees when a command's arguments are wrong, in-process: a non-zero exit code and one
 * line on stderr, {@code duraflow: <what is wrong and what to do>}, with a stack trace only under
 * --verbose. The commands fail before they reach a JobManager (the address they are given has
 * no listener). {@code CliErrorsIT} checks errors that need a process of their own: the
 * launcher's exit code, servers that cannot bind, unreachable JobManagers and ZooKeeper.
 */
class CliErrorsTest {
    /** What one in-process run printed, on the command line's writers and on System.out / System.err, and returned. */
    record Run(List<String> args, int exitCode, String stdout, String stderr) {
        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        @Override
        public String toString() {
            return "duraflow " + String.join(" ", args) + "\n  exit code " + exitCode + "\n  stdout:\n" + stdout
                    + "\n  stderr:\n" + stderr;
        }
    }

    /** Runs the command line in this JVM; what the command prints on System.out and System.err counts too. */
    private static Run duraflow(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        ByteArrayOutputStream systemOut = new ByteArrayOutputStream();
        ByteArrayOutputStream systemErr = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        int exitCode;
        try {
            System.setOut(new PrintStream(systemOut, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(systemErr, true, StandardCharsets.UTF_8));
            CommandLine commandLine = Duraflow.commandLine(false);
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));
            exitCode = commandLine.execute(args);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new Run(List.of(args), exitCode, out + systemOut.toString(StandardCharsets.UTF_8),
                err + systemErr.toString(StandardCharsets.UTF_8));
    }

    /** A loopback address that nothing listens on (its port was free a moment ago). */
    private static String unreachable() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + socket.getLocalPort();
        }
    }

    /** Exit code != 0, stderr is exactly one "duraflow: " line with all the fragments, no stack trace anywhere. */
    private static void assertOneLineError(Run result, String... fragments) {
        assertThat(result.exitCode()).as("exit code of %s", result).isNotZero();
        assertThat(result.stderrLines()).as("stderr of %s", result).hasSize(1);
        String line = result.stderrLines().get(0);
        assertThat(line).as("%s", result).startsWith("duraflow: ");
        for (String fragment : fragments) {
            assertThat(line).as("%s", result).contains(fragment);
        }
        assertThat(result.stdout() + result.stderr()).as("no stack trace in %s", result).doesNotContain("\tat ")
                .doesNotContain("Exception:");
    }

    @Test
    void unknownJobClass() throws Exception {
        Run result = duraflow("run", "com.example.NoSuchJob", "--jobmanager", unreachable());

        assertOneLineError(result, "unknown job class 'com.example.NoSuchJob'", "duraflow run app.jar", "wordcount");
        assertThat(result.stdout()).isEmpty();
    }

    @Test
    void invalidParameterValue() throws Exception {
        Run result = duraflow("run", "wordcount", "--param", "words=abc", "--jobmanager", unreachable());

        assertOneLineError(result, "'words'", "whole number", "'abc'");
        assertThat(result.stdout()).isEmpty();
    }

    @Test
    void unknownParameter() throws Exception {
        Run result = duraflow("run", "wordcount", "--param", "wrods=5", "--jobmanager", unreachable());

        assertOneLineError(result, "unknown parameter wrods", "words");
        assertThat(result.stdout()).isEmpty();
    }

    @Test
    void verboseAddsTheStackTrace() throws Exception {
        Run result = duraflow("run", "wordcount", "--verbose", "--param", "words=abc", "--jobmanager", unreachable());

        assertThat(result.exitCode()).as("%s", result).isNotZero();
        assertThat(result.stderrLines().get(0)).as("%s", result).startsWith("duraflow: ").contains("'words'");
        assertThat(result.stderr()).as("%s", result).contains("\tat ");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"run", "jobmanager", "taskmanager"})
    void unknownConfigKeySuggestsTheRightOne(String command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        if (command.equals("run")) {
            args.add("wordcount");
        }
        if (!command.equals("jobmanager")) {
            args.addAll(List.of("--jobmanager", unreachable()));
        }
        args.addAll(List.of("-D", "jobmanager.rpc.port=0", "-D", "heartbeat.intervall=1s"));

        Run result = duraflow(args.toArray(String[]::new));

        assertOneLineError(result, "'heartbeat.intervall'", "did you mean 'heartbeat.interval'");
    }
}

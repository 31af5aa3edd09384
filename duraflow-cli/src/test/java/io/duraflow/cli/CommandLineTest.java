package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line itself, in-process: help, argument errors, which commands are servers. */
class CommandLineTest {
    /** What one in-process run of the command line printed and returned. */
    record Run(int exitCode, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = Duraflow.commandLine(false);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }

    /** Every command's path from the root, e.g. [local, start]. */
    private static void collect(CommandLine command, List<String> path, Map<List<String>, CommandLine> all) {
        all.put(path, command);
        command.getSubcommands().forEach((name, sub) -> {
            List<String> next = new ArrayList<>(path);
            next.add(name);
            collect(sub, next, all);
        });
    }

    @Test
    void everyCommandAndSubcommandHasHelp() {
        Map<List<String>, CommandLine> commands = new java.util.LinkedHashMap<>();
        collect(Duraflow.commandLine(false), List.of(), commands);
        assertThat(commands.keySet()).contains(List.of("local"), List.of("local", "start"), List.of("list"),
                List.of("run"), List.of("jobmanager"), List.of("zookeeper"), List.of("result"));

        for (List<String> path : commands.keySet()) {
            for (String help : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(path);
                args.add(help);
                Run run = run(args.toArray(String[]::new));

                assertThat(run.exitCode()).as("exit code of 'duraflow %s': %s", args, run).isZero();
                assertThat(run.err()).as("stderr of 'duraflow %s'", args).isEmpty();
                assertThat(run.out()).as("'duraflow %s'", args)
                        .contains("Usage: " + String.join(" ", concat("duraflow", path)) + " ");
            }
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return all;
    }

    @Test
    void helpComesBeforeMissingParameters() {
        Run run = run("run", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).startsWith("Usage: duraflow run").doesNotContain("Missing required");
    }

    @Test
    void anOverrideWithoutValueIsOneLineSayingTheExpectedForm() {
        Run run = run("-D", "heartbeat.timeout", "config");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.errLines()).containsExactly(
                "duraflow: -D needs key=value, got 'heartbeat.timeout' (e.g. -D heartbeat.timeout=5s)");
    }

    @Test
    void aJobParameterWithoutValueIsOneLineToo() {
        Run run = run("run", "wordcount", "--param", "words");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).containsExactly(
                "duraflow: --param needs key=value, got 'words' (e.g. --param words=1000)");
    }

    @Test
    void otherArgumentErrorsAreOneLineWithWhereToFindHelp() {
        Run missing = run("local");
        Run unknown = run("list", "--frobnicate");
        Run typo = run("lst");

        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.errLines()).containsExactly(
                "duraflow: 'duraflow local' needs a command: start, stop, status; see 'duraflow local --help'");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.errLines()).hasSize(1);
        assertThat(unknown.errLines().get(0)).startsWith("duraflow: Unknown option: '--frobnicate'")
                .endsWith("; see 'duraflow list --help'");
        assertThat(typo.errLines()).hasSize(1);
        assertThat(typo.errLines().get(0)).contains("'lst'").contains("did you mean list");
    }

    @Test
    void serverCommandsAreRecognisedWhereverTheGlobalOptionsStand() {
        CommandLine commandLine = Duraflow.commandLine(false);

        assertThat(CommandLineConventions.isServer(commandLine.parseArgs("--work-dir", "w", "jobmanager"))).isTrue();
        assertThat(CommandLineConventions.isServer(Duraflow.commandLine(false).parseArgs("-D", "a=b", "--verbose", "taskmanager",
                "--jobmanager", "127.0.0.1:1"))).isTrue();
        assertThat(CommandLineConventions.isServer(Duraflow.commandLine(false).parseArgs("--config", "c.yaml", "zookeeper",
                "--port", "1", "--data-dir", "d"))).isTrue();
        assertThat(CommandLineConventions.isServer(Duraflow.commandLine(false).parseArgs("jobmanager", "--work-dir", "w")))
                .isTrue();
        assertThat(CommandLineConventions.isServer(Duraflow.commandLine(false).parseArgs("--work-dir", "w", "local", "start")))
                .isFalse();
        assertThat(CommandLineConventions.isServer(Duraflow.commandLine(false).parseArgs("list"))).isFalse();
    }

    @Test
    void aMalformedFailpointPropertyIsAOneLineErrorNamingIt() {
        String before = System.getProperty("duraflow.failpoints");
        System.setProperty("duraflow.failpoints", "a,a");
        try {
            Run run = run("config");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.errLines()).hasSize(1);
            assertThat(run.errLines().get(0)).startsWith("duraflow: -Dduraflow.failpoints='a,a' names 'a' twice");
        } finally {
            if (before == null) {
                System.clearProperty("duraflow.failpoints");
            } else {
                System.setProperty("duraflow.failpoints", before);
            }
        }
    }

    @Test
    void anExceptionWithoutMessageIsShownWithItsTypeNotAsNull() {
        NullPointerException bare = new NullPointerException();

        assertThat(Duraflow.oneLine(bare)).startsWith("java.lang.NullPointerException without a message at ")
                .contains("CommandLineTest");
        assertThat(Duraflow.oneLine(new IllegalStateException("first\nsecond"))).isEqualTo("first");
    }

    @Test
    void aJobManagerErrorWithoutDescriptionSaysWhereToLook() {
        var bare = io.grpc.Status.INTERNAL.withDescription("null").asRuntimeException();
        var described = io.grpc.Status.NOT_FOUND.withDescription("no job with id 'x'").asRuntimeException();

        assertThat(ClusterClient.errorMessage(bare, "127.0.0.1:6123")).isEqualTo(
                "the JobManager at 127.0.0.1:6123 failed the request with INTERNAL and gave no reason; its log has"
                        + " the cause");
        assertThat(ClusterClient.errorMessage(described, "127.0.0.1:6123")).isEqualTo("no job with id 'x'");
    }

    /**
     * A submission sent again after a failover is marked, so that the JobManager answers a job it
     * already runs with that id and submission as the client's own (not "already running"); only
     * with an id the client chose, since without one each send gets an id of its own.
     */
    @Test
    void aSubmissionSentAgainIsMarkedAsAResubmissionOnlyWithAJobIdOfTheClients() {
        var request = io.duraflow.rpc.proto.SubmitJobRequest.newBuilder().setJobId("job-1").setJobClass("WordCount")
                .putParams("words", "100").setParallelism(2).build();
        var withoutId = request.toBuilder().clearJobId().build();

        assertThat(request.getResubmission()).as("the first send").isFalse();
        assertThat(ClusterClient.resubmission(request)).isEqualTo(request.toBuilder().setResubmission(true).build());
        assertThat(ClusterClient.resubmission(withoutId)).isEqualTo(withoutId);
    }

    @Test
    void restoreOptionsNeedFromSavepointAndClaimModesExcludeEachOther() {
        assertThat(run("run", "wordcount", "--claim").errLines()).containsExactly("duraflow: --claim, --no-claim and"
                + " --allow-non-restored-state go with --from-savepoint PATH; give the savepoint or checkpoint to restore");
        assertThat(run("run", "wordcount", "--from-savepoint", "/sp", "--claim", "--no-claim").errLines())
                .containsExactly("duraflow: give --claim or --no-claim, not both (default: --no-claim)");
    }

    @Test
    void fromSavepointSendsAnAbsolutePathAndNoClaimByDefault() {
        var restore = SavepointCommand.restore("sp/savepoint-a-3", false, false, false);
        assertThat(restore.getPath()).isEqualTo(java.nio.file.Path.of("sp/savepoint-a-3").toAbsolutePath().toString());
        assertThat(restore.getClaim()).isFalse();
        assertThat(restore.getAllowNonRestoredState()).isFalse();
        assertThat(SavepointCommand.restore("hdfs://nn:8020/sp/x", true, false, true)).satisfies(claimed -> {
            assertThat(claimed.getPath()).isEqualTo("hdfs://nn:8020/sp/x");
            assertThat(claimed.getClaim()).isTrue();
            assertThat(claimed.getAllowNonRestoredState()).isTrue();
        });
        assertThat(SavepointCommand.restore(null, false, false, false)).isNull();
    }

    @Test
    void checkpointsVerifyOfAMissingDirectoryIsAOneLineErrorAndWithoutAJobIdToo(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path tmp) {
        Run missing = run("checkpoints", "verify", tmp.resolve("nope").toString());
        Run noJob = run("checkpoints");
        Run empty = run("checkpoints", "verify", tmp.toString());

        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.errLines()).singleElement().asString().contains("nope").contains("is not a directory")
                .contains("<execution.checkpointing.dir>/<job id>");
        assertThat(noJob.exitCode()).isEqualTo(1);
        assertThat(noJob.errLines()).singleElement().asString().contains("verify DIR");
        assertThat(empty.exitCode()).isEqualTo(1);
        assertThat(empty.errLines()).singleElement().asString().contains("holds no job's checkpoints");
    }

    @Test
    void checkpointsVerifyPrintsWhatItFoundAndExitsWithOneOnAnOrphan(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path job = tmp.resolve("job-1");
        java.nio.file.Files.createDirectories(job.resolve("shared"));
        java.nio.file.Files.write(job.resolve("shared").resolve("leftover"), new byte[7]);

        Run dirty = run("checkpoints", "verify", tmp.toString());
        java.nio.file.Files.delete(job.resolve("shared").resolve("leftover"));
        Run clean = run("checkpoints", "verify", job.toString());

        assertThat(dirty.exitCode()).isEqualTo(1);
        assertThat(dirty.out()).contains("Checking " + job.toUri().getPath().replaceAll("/$", "")
                + ": 0 retained checkpoints").contains("0 missing, 0 corrupt, 1 orphan")
                .contains("orphan:  ").contains("leftover").contains("FAILED: 0 missing, 0 corrupt, 1 orphan");
        assertThat(clean.exitCode()).isZero();
        assertThat(clean.out()).contains("0 missing, 0 corrupt, 0 orphans").endsWith("OK" + System.lineSeparator());
    }
}

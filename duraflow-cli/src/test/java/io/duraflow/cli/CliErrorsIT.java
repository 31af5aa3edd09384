package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees when something is wrong, from the real launcher in a process of its own: a
 * non-zero exit code and one line on stderr, {@code duraflow: <what is wrong and what to do>},
 * and no stack trace, not even from the log of a client library. Also the life cycle of
 * {@code duraflow local start / status / stop}. Errors in a command's arguments are checked
 * in-process by {@link CliErrorsTest}.
 */
class CliErrorsIT {
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    /**
     * How long a client command may take with ZooKeeper unreachable. It should give up after the
     * 5 s connection timeout; the bug was a client that kept looking for the leader for its
     * failover timeout (~85 s in all). Such a client waits that timeout in wall-clock time
     * whatever the load, so a command that ends sooner did not wait for it, while the command's
     * own duration (the start of its JVM, ZooKeeper's client) grows with the load: 10 s failed at
     * load average 15, 30 s at 35 (it took 37 s).
     */
    private static final Duration UNREACHABLE_ZOOKEEPER_BOUND = Duraflow.CLIENT_FAILOVER_TIMEOUT;

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    /** A loopback port that nothing listens on (it was free a moment ago). */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String unreachable() throws IOException {
        return "127.0.0.1:" + freePort();
    }

    /** Exit code != 0, stderr is exactly one "duraflow: " line with all the fragments, no stack trace anywhere. */
    private static void assertOneLineError(Cli.Result result, String... fragments) {
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
    void jobManagerPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            Cli.Result result = duraflow("jobmanager", "-D", "jobmanager.rpc.port=" + port);

            assertOneLineError(result, "port " + port, "already in use", "-Djobmanager.rpc.port=");
        }
    }

    @Test
    void metricsPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            Cli.Result result = duraflow("jobmanager", "-D", "jobmanager.rpc.port=0", "-D",
                    "metrics.prometheus.port=" + port);

            assertOneLineError(result, "metrics.prometheus.port: port " + port, "already in use", "9249-9260");
        }
    }

    /** Both commands run side by side: they only wait for their JVMs and a refused connection. */
    @Test
    void unreachableJobManager() throws Exception {
        String address = unreachable();

        Cli.Running run = Cli.start(LOGS.watch(tempDir), "run", "wordcount", "--jobmanager", address);
        Cli.Running list = Cli.start(LOGS.watch(tempDir), "list", "--jobmanager", address);

        for (Cli.Result result : List.of(run.await(CLI_TIMEOUT), list.await(CLI_TIMEOUT))) {
            assertOneLineError(result, "cannot reach the JobManager at " + address, "duraflow local start",
                    "--jobmanager");
        }
    }

    /**
     * Regression: ZooKeeper down made every client command hang ~85 s and print client stack
     * traces. Both commands wait out the 5 s connection timeout, so they run side by side.
     */
    @Test
    void unreachableZooKeeperIsOneLineWithinSeconds() throws Exception {
        String quorum = unreachable();
        List<String> ha = List.of("-D", "high-availability.type=zookeeper", "-D", "high-availability.zookeeper.quorum="
                + quorum);
        long start = System.nanoTime();
        List<Cli.Running> running = new ArrayList<>();
        for (List<String> command : List.of(List.of("status", "some-job"), List.of("list"))) {
            List<String> args = new ArrayList<>(command);
            args.addAll(ha);
            running.add(Cli.start(LOGS.watch(tempDir), args.toArray(String[]::new)));
        }

        for (Cli.Running command : running) {
            Cli.Result result = command.await(CLI_TIMEOUT);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertOneLineError(result, "ZooKeeper at " + quorum + " is unreachable (no connection within 5 s)",
                    "high-availability.zookeeper.quorum");
            assertThat(result.stdout()).as("%s", result).isEmpty();
            assertThat(took).as("time until %s", result).isLessThan(UNREACHABLE_ZOOKEEPER_BOUND);
        }
    }

    /** Regression: 'duraflow --work-dir W jobmanager' logged nothing at INFO, not even where it listens. */
    @Test
    void aServerLogsAtInfoWhereverTheGlobalOptionsStand() throws Exception {
        Path workDir = LOGS.watch(tempDir);
        Path log = workDir.resolve("log").resolve("jobmanager-options-first.log");
        Process jobManager = ChildJvm.start(ChildJvm.JOBMANAGER_OPTIONS, List.of("--work-dir",
                workDir.resolve("work").toString(), "-D", "jobmanager.rpc.port=0", "jobmanager"), workDir, log);
        try {
            await("the JobManager logs where it listens").atMost(Duration.ofSeconds(30))
                    .until(() -> !jobManager.isAlive() || Files.readString(log).contains("listening on"));
            assertThat(Files.readString(log)).as("log of a JobManager started with global options first")
                    .contains("INFO").contains("listening on");
        } finally {
            ChildJvm.killAll(List.of(jobManager));
        }
    }

    // ------------------------------------------------------------------ local start / status / stop

    /**
     * A local cluster started, refused a job whose input does not exist (one line; no job runs),
     * asked for its status, refused a second start, ran two jobs, and stopped. On
     * jobmanager.rpc.port=0, "any free port", as the tests and scripts that run clusters side by
     * side need it; the address it found is the one the next commands use. Then, without high
     * availability, the job result store survives the restart of the whole cluster: started again,
     * it shows the result of a job that ran before ('duraflow result'), and that job id cannot run
     * again.
     */
    @Test
    void localStartStatusStop() throws Exception {
        Path workDir = tempDir.resolve("local");
        String[] config = {"-D", "jobmanager.rpc.port=0", "-D", "heartbeat.interval=500ms", "-D",
                "heartbeat.timeout=3s"};
        LOGS.watch(workDir);
        Map<String, Long> pids = new TreeMap<>();
        try {
            Cli.Result start = duraflow(concat(new String[] {"local", "start", "--work-dir", workDir.toString(),
                    "--taskmanagers", "2"}, config));
            pids.putAll(pids(workDir));

            assertThat(start.exitCode()).as("%s", start).isZero();
            assertThat(start.stdout()).as("%s", start).contains("2 TaskManagers registered")
                    .containsPattern("Local cluster running at 127\\.0\\.0\\.1:[1-9]\\d+");
            assertThat(pids).as("pid files").containsOnlyKeys("jobmanager", "taskmanager-1", "taskmanager-2");
            assertThat(pids.values()).as("processes of %s", pids).allMatch(CliErrorsIT::alive);

            Path missing = tempDir.resolve("no-such-dir").resolve("words.txt");
            Cli.Result missingInput = duraflow("run", "wordcount", "--work-dir", workDir.toString(), "--param",
                    "input=" + missing);
            assertOneLineError(missingInput, "input path not found", missing.toString());

            Cli.Result status = duraflow("local", "status", "--work-dir", workDir.toString());
            assertThat(status.exitCode()).as("%s", status).isZero();
            for (Map.Entry<String, Long> process : pids.entrySet()) {
                assertThat(status.stdout()).as("%s", status)
                        .containsPattern(process.getKey() + "\\s+pid " + process.getValue() + "\\s+running");
            }
            assertThat(status.stdout()).as("%s", status).contains("2 TaskManagers, 0 running jobs");

            Cli.Result again = duraflow(concat(new String[] {"local", "start", "--work-dir", workDir.toString()},
                    config));
            assertOneLineError(again, "already running in " + workDir, "duraflow local stop");

            Cli.Result run = duraflow("run", "wordcount", "--work-dir", workDir.toString(), "--param", "words=10000",
                    "--param", "distinct=100");
            assertThat(run.exitCode()).as("%s", run).isZero();
            assertThat(run.stdout()).as("%s", run).contains("counts: 100 records");
            Path marker = tempDir.resolve("marker");
            String[] sideEffects = sideEffectRun(workDir, marker);
            Cli.Result ran = duraflow(sideEffects);
            assertThat(ran.exitCode()).as("%s", ran).isZero();
            assertThat(SideEffectRuns.count(ran.stdout(), "Job " + RESTARTED_JOB + " (SideEffectJob) FINISHED"))
                    .as("results printed by %s", ran).isEqualTo(1);
            Path results = workDir.resolve("ha/default/job-result-store");
            await("the result is marked clean").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> Files.exists(results.resolve(RESTARTED_JOB + ".clean.json")));

            assertStopsEverything(workDir, pids);
            assertTheResultSurvivesARestart(workDir, config, sideEffects, marker, pids);
        } finally {
            killLeftovers(workDir, pids);
        }
    }

    private static final String RESTARTED_JOB = "survives-restart";

    /** 'duraflow run' of a {@link SideEffectJob} with the job id {@link #RESTARTED_JOB} on the local cluster. */
    private static String[] sideEffectRun(Path workDir, Path marker) {
        return SideEffectRuns.concat(SideEffectRuns.runCommand(RESTARTED_JOB, sideEffectParams(marker)),
                List.of("--work-dir", workDir.toString()));
    }

    private static Map<String, String> sideEffectParams(Path marker) {
        return SideEffectRuns.params(marker, SideEffectRuns.NUMBERS, 0);
    }

    /** The stopped cluster starts again: the job's result is still there, and its id cannot run again. */
    private void assertTheResultSurvivesARestart(Path workDir, String[] config, String[] sideEffects, Path marker,
            Map<String, Long> pids) throws Exception {
        Cli.Result restart = duraflow(concat(new String[] {"local", "start", "--work-dir", workDir.toString(),
                "--taskmanagers", "1"}, config));
        pids.clear();
        pids.putAll(pids(workDir));
        assertThat(restart.exitCode()).as("%s", restart).isZero();

        Cli.Result shown = duraflow("result", RESTARTED_JOB, "--work-dir", workDir.toString());
        assertThat(shown.exitCode()).as("%s", shown).isZero();
        assertThat(shown.stdout()).as("%s", shown).contains("Job " + RESTARTED_JOB + " (SideEffectJob) FINISHED")
                .contains(SideEffectJob.RESULT + ": " + SideEffectRuns.KEYS + " records")
                .contains(SideEffectRuns.expectedLine(7, sideEffectParams(marker)));
        Cli.Result again = duraflow(sideEffects);
        assertThat(again.exitCode()).as("%s", again).isZero();
        assertThat(again.stdout()).as("%s", again).contains("job " + RESTARTED_JOB + " already ended as FINISHED")
                .doesNotContain("Submitted job");
        SideEffectRuns.assertMarkerLinesPerSink(marker, 1, "the one run");
        assertThat(workDir.resolve("ha/default/job-result-store/" + RESTARTED_JOB + ".dirty.json")).doesNotExist();
        assertThat(workDir.resolve("ha/default/job-graphs/" + RESTARTED_JOB + ".json")).doesNotExist();
        for (String taskManager : List.of("taskmanager-1", "taskmanager-2")) {
            assertThat(workDir.resolve(taskManager + "/partitions/" + RESTARTED_JOB)).as("the job's partitions")
                    .satisfiesAnyOf(dir -> assertThat(dir).doesNotExist(), dir -> assertThat(dir).isEmptyDirectory());
        }

        Cli.Result stop = duraflow("local", "stop", "--work-dir", workDir.toString());
        assertThat(stop.exitCode()).as("%s", stop).isZero();
        await("all local cluster processes gone").atMost(Duration.ofSeconds(10))
                .until(() -> pids.values().stream().noneMatch(CliErrorsIT::alive));
    }

    private void assertStopsEverything(Path workDir, Map<String, Long> pids) throws Exception {
        Cli.Result stop = duraflow("local", "stop", "--work-dir", workDir.toString());
        assertThat(stop.exitCode()).as("%s", stop).isZero();
        assertThat(stop.stdout()).as("%s", stop).contains("Stopped " + pids.size() + " processes");
        await("all local cluster processes gone").atMost(Duration.ofSeconds(10))
                .until(() -> pids.values().stream().noneMatch(CliErrorsIT::alive));

        Cli.Result stopped = duraflow("local", "status", "--work-dir", workDir.toString());
        assertThat(stopped.exitCode()).as("%s", stopped).isNotZero();
        assertThat(stopped.stdout()).as("%s", stopped).contains("No local cluster in " + workDir);
    }

    /** Whatever happened, no process of the local cluster outlives the test (it may have run twice). */
    private static void killLeftovers(Path workDir, Map<String, Long> pids) throws IOException {
        pids.putAll(pids(workDir));
        pids.values().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** name -> pid from a local cluster's pid files. */
    private static Map<String, Long> pids(Path workDir) throws IOException {
        return new LocalCluster(workDir, Map.of(), line -> {}).processes();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

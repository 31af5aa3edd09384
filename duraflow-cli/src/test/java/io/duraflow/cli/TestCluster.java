package io.duraflow.cli;

import static org.awaitility.Awaitility.await;

import io.duraflow.client.CollectedResults;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One JobManager and N TaskManagers as real processes on loopback, for integration tests.
 * <pre>
 *   dir/
 *     jobmanager.address     host:port, written by the JobManager once it listens
 *     log/jobmanager.log     each process's stdout and stderr
 *     log/taskmanager-I.log  I = 0, 1, ... in start order (restarted TaskManagers get new numbers)
 *     taskmanager-I/         each TaskManager's partitions and spill files
 * </pre>
 * {@link #close()} kills every process with SIGKILL and fails if one survives. When start-up
 * fails, the logs' tails are printed; {@link LogsOnFailure} prints them when a test fails.
 */
final class TestCluster implements AutoCloseable {
    static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern TM_LISTENING = Pattern.compile("TaskManager (\\S+) listening on (\\S+),");

    /**
     * Fast failure detection for tests; anything here can be overridden per cluster. A 2 s
     * heartbeat timeout is tight for a loaded 2-core machine (a long GC pause can look like a dead
     * TaskManager), so 3 s unless a test chooses otherwise.
     */
    static Map<String, String> defaultConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.port", "0");
        config.put("heartbeat.interval", "500ms");
        config.put("heartbeat.timeout", "3s");
        config.put("restart-strategy.fixed-delay.delay", "200ms");
        return config;
    }

    private final Path dir;
    private final Map<String, String> config;
    private final List<String> taskManagerJvmOptions;
    private final Process jobManager;
    private final List<Process> taskManagers = new ArrayList<>();
    private final String address;
    private final ClusterClient client;

    private TestCluster(Path dir, Map<String, String> config, List<String> taskManagerJvmOptions, Process jobManager,
            String address) {
        this.dir = dir;
        this.config = config;
        this.taskManagerJvmOptions = taskManagerJvmOptions;
        this.jobManager = jobManager;
        this.address = address;
        this.client = new ClusterClient(address);
    }

    /** Starts a JobManager and {@code taskManagers} TaskManagers and waits until all registered. */
    static TestCluster start(Path dir, int taskManagers, Map<String, String> overrides) throws IOException {
        return start(dir, taskManagers, overrides, ChildJvm.TASKMANAGER_OPTIONS);
    }

    /** As {@link #start(Path, int, Map)}, with the TaskManagers' JVM options (see {@link ChildJvm}). */
    static TestCluster start(Path dir, int taskManagers, Map<String, String> overrides,
            List<String> taskManagerJvmOptions) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> config = defaultConfig();
        config.putAll(overrides);
        Path addressFile = dir.resolve("jobmanager.address");
        List<String> args = new ArrayList<>(List.of("jobmanager", "--address-file", addressFile.toString()));
        args.addAll(ChildJvm.configOptions(config));
        Process jobManager = ChildJvm.start(ChildJvm.JOBMANAGER_OPTIONS, args, dir, dir.resolve("log/jobmanager.log"));
        TestCluster cluster = null;
        try {
            await("JobManager address file " + addressFile).atMost(STARTUP_TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .failFast("the JobManager exited", () -> !jobManager.isAlive())
                    .until(() -> Files.exists(addressFile) && !Files.readString(addressFile).isBlank());
            cluster = new TestCluster(dir, config, taskManagerJvmOptions, jobManager,
                    Files.readString(addressFile).trim());
            for (int i = 0; i < taskManagers; i++) {
                cluster.spawnTaskManager();
            }
            cluster.awaitTaskManagers(taskManagers);
            return cluster;
        } catch (IOException | RuntimeException | Error e) {
            System.err.println("Cluster in " + dir + " failed to start:\n" + logTails(dir, 60));
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (AssertionError stillAlive) {
                    e.addSuppressed(stillAlive);
                }
            } else {
                jobManager.destroyForcibly();
            }
            throw e;
        }
    }

    String address() {
        return address;
    }

    /** The JobManager's process id (for {@code jcmd}). */
    long jobManagerPid() {
        return jobManager.pid();
    }

    /** TaskManager {@code index}'s process id (for {@code jcmd}). */
    long taskManagerPid(int index) {
        return taskManagers.get(index).pid();
    }

    // ------------------------------------------------------------------ TaskManagers

    private int spawnTaskManager() throws IOException {
        int index = taskManagers.size();
        String name = "taskmanager-" + index;
        List<String> args = new ArrayList<>(List.of("taskmanager", "--jobmanager", address));
        args.addAll(ChildJvm.configOptions(config));
        args.addAll(List.of("-D", "taskmanager.data-dir=" + dir.resolve(name)));
        taskManagers.add(ChildJvm.start(taskManagerJvmOptions, args, dir, log(name)));
        return index;
    }

    /** Starts one more TaskManager, waits until it registered and returns its index. */
    int startTaskManager() throws IOException {
        int index = spawnTaskManager();
        String tmId = taskManagerId(index);
        await("TaskManager " + index + " (" + tmId + ") registered").atMost(STARTUP_TIMEOUT)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> overview().getTaskManagersList().stream().anyMatch(tm -> tm.getTmId().equals(tmId)));
        return index;
    }

    /** Kills TaskManager {@code index} with SIGKILL and waits until the process is gone. */
    void killTaskManager(int index) throws InterruptedException {
        Process process = taskManagers.get(index);
        process.destroyForcibly();
        process.waitFor();
    }

    int taskManagerCount() {
        return taskManagers.size();
    }

    /** How many TaskManager processes are alive (killed ones are not replaced by themselves). */
    int liveTaskManagerCount() {
        return (int) taskManagers.stream().filter(Process::isAlive).count();
    }

    /** The index of the TaskManager that runs in process {@code pid}. */
    int taskManagerIndexOfPid(long pid) {
        for (int i = 0; i < taskManagers.size(); i++) {
            if (taskManagers.get(i).pid() == pid) {
                return i;
            }
        }
        throw new AssertionError("no TaskManager of this cluster has pid " + pid);
    }

    /**
     * The TaskManager's id, as its log reports once it registered (e.g. "tm-1a2b3c4d"); waits for
     * that line unless the process already died.
     */
    String taskManagerId(int index) {
        Optional<String> logged = match(TM_LISTENING, taskManagerLog(index));
        if (logged.isPresent()) {
            return logged.get();
        }
        return await("TaskManager " + index + " reports its id in " + log("taskmanager-" + index))
                .atMost(STARTUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .failFast("TaskManager " + index + " exited", () -> !taskManagers.get(index).isAlive())
                .until(() -> match(TM_LISTENING, taskManagerLog(index)), Optional::isPresent).get();
    }

    private static Optional<String> match(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /** Waits until exactly {@code count} TaskManagers are registered. */
    void awaitTaskManagers(int count) {
        await(count + " TaskManagers registered").atMost(STARTUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .failFast("a process exited", () -> !jobManager.isAlive()
                        || taskManagers.stream().filter(Process::isAlive).count() < count)
                .until(() -> overview().getTaskManagersCount() == count);
    }

    ClusterOverview overview() {
        return client.overview();
    }

    // ------------------------------------------------------------------ jobs

    /** Submits a job to the JobManager directly over gRPC; returns its id. */
    String submit(String jobClass, Map<String, String> params, int parallelism) {
        SubmitJobRequest request = SubmitJobRequest.newBuilder().setJobClass(jobClass).putAllParams(params)
                .setParallelism(parallelism).build();
        return client.submit(request).getJobId();
    }

    /** The client the cluster's helpers use. */
    ClusterClient client() {
        return client;
    }

    JobStatus status(String jobId) {
        return client.status(jobId);
    }

    /** Waits until the job ended (in any state) and returns its result. */
    JobResult awaitResult(String jobId, Duration timeout) {
        try {
            await("job " + jobId + " ends").atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .until(() -> JobRunner.isTerminal(status(jobId).getState()));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("job " + jobId + " did not end within " + timeout + ": "
                    + JobRunner.progressLine(status(jobId)), e);
        }
        return client.result(jobId);
    }

    /** Collected results decoded with the types of the job's plan, built here the same way. */
    static Map<String, List<Object>> decode(JobResult result, String jobClass, Map<String, String> params,
            int parallelism) {
        return CollectedResults.decode(result, JobPlans.build(jobClass, params, parallelism));
    }

    static VertexStatus vertex(JobStatus status, String namePrefix) {
        return status.getVerticesList().stream().filter(v -> v.getName().startsWith(namePrefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no vertex '" + namePrefix + "...' in " + status));
    }

    // ------------------------------------------------------------------ logs

    Path log(String name) {
        return dir.resolve("log").resolve(name + ".log");
    }

    String taskManagerLog(int index) {
        return logText("taskmanager-" + index);
    }

    String logText(String name) {
        try {
            Path log = log(name);
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of every log under {@code dir}, one block per file. */
    static String logTails(Path dir, int lines) {
        Path logs = dir.resolve("log");
        if (!Files.isDirectory(logs)) {
            return "(no logs in " + dir + ")";
        }
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.sorted().toList()) {
                text.append("----- ").append(file).append(" (last ").append(lines).append(" lines)\n")
                        .append(ChildJvm.tail(file, lines)).append('\n');
            }
        } catch (IOException e) {
            text.append("(cannot list ").append(logs).append(": ").append(e).append(")");
        }
        return text.toString();
    }

    // ------------------------------------------------------------------ the end

    private List<Process> processes() {
        List<Process> all = new ArrayList<>();
        all.add(jobManager);
        all.addAll(taskManagers);
        return all;
    }

    /** Kills every process (SIGKILL) and fails if one is still alive afterwards. */
    @Override
    public void close() {
        client.close();
        ChildJvm.killAll(processes());
    }
}

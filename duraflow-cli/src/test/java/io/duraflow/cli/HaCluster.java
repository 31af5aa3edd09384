package io.duraflow.cli;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import io.duraflow.config.Configuration;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.util.Failpoints;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.LoggerFactory;

/**
 * A highly available cluster as real processes on loopback: a ZooKeeper server, two (or more)
 * JobManagers that elect a leader through it, and TaskManagers that follow the leader.
 * <pre>
 *   dir/
 *     jobmanager-N.address   host:port of JobManager N (1, 2, ...), written once it listens
 *     ha/default/            high-availability.storage-dir: job-graphs/, job-result-store/, jobs/
 *     taskmanager-I/         TaskManager I's data directory (partitions/&lt;jobId&gt;/...)
 *     zookeeper/             the ZooKeeper server's data, if this cluster runs its own
 *     log/                   jobmanager-N.log, taskmanager-I.log, zookeeper.log
 * </pre>
 * JobManager 1 starts first (the TaskManagers with it) and is made the leader before the other
 * JobManagers start. Every JobManager reads the failpoints a test arms in {@code dir/failpoints}
 * ({@link #armFailpoint}), so the leader stops at one whichever JobManager leads, and tests can
 * share a cluster. The test JVM follows the leader in ZooKeeper like a client does. {@link #close()} SIGKILLs every
 * process (also stopped ones) and fails if one survives.
 */
final class HaCluster implements AutoCloseable {
    static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    static {
        // The ZooKeeper and Curator clients of the test JVM log every connection at INFO.
        for (String name : List.of("org.apache.zookeeper", "org.apache.curator")) {
            if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
                logger.setLevel(Level.WARN);
            }
        }
    }

    /** One JobManager process: jobmanager-N and its address file. */
    static final class JobManager {
        final String name;
        final Process process;
        final Path addressFile;
        private String address;

        JobManager(String name, Process process, Path addressFile) {
            this.name = name;
            this.process = process;
            this.addressFile = addressFile;
        }

        /** host:port from the address file; waits until the JobManager wrote it. */
        synchronized String address() {
            if (address == null) {
                address = await(name + " writes " + addressFile).atMost(STARTUP_TIMEOUT)
                        .pollInterval(Duration.ofMillis(50))
                        .failFast(name + " exited", () -> !process.isAlive())
                        .until(() -> Files.exists(addressFile) ? Files.readString(addressFile).trim() : "",
                                text -> !text.isEmpty());
            }
            return address;
        }

        @Override
        public String toString() {
            return name + " (pid " + process.pid() + (address != null ? ", " + address : "") + ")";
        }
    }

    private final Path dir;
    private final ZooKeeperServer zooKeeper;
    private final boolean ownsZooKeeper;
    private final Map<String, String> config;
    private final List<JobManager> jobManagers = new ArrayList<>();
    private final List<Process> taskManagers = new ArrayList<>();
    private final HighAvailabilityServices ha;
    private final LeaderRetrieval retrieval;
    private ClusterClient client;

    private HaCluster(Path dir, ZooKeeperServer zooKeeper, boolean ownsZooKeeper, Map<String, String> config) {
        this.dir = dir;
        this.zooKeeper = zooKeeper;
        this.ownsZooKeeper = ownsZooKeeper;
        this.config = config;
        this.ha = HighAvailabilityServices.create(Configuration.fromMap(config));
        this.retrieval = ha.createLeaderRetrieval("");
    }

    /**
     * The configuration every process of the cluster gets: {@link TestCluster#defaultConfig()},
     * ZooKeeper high availability with a 3 s session timeout, a 5 s heartbeat timeout, and
     * {@code overrides}. Each cluster has its own ZooKeeper root, so clusters can share a server.
     */
    static Map<String, String> haConfig(Path dir, ZooKeeperServer zooKeeper, Map<String, String> overrides) {
        Map<String, String> config = TestCluster.defaultConfig();
        config.put("heartbeat.timeout", "5s");
        config.put("high-availability.type", "zookeeper");
        config.put("high-availability.zookeeper.quorum", zooKeeper.quorum());
        config.put("high-availability.zookeeper.root", "/it-" + ProcessHandle.current().pid() + "-"
                + CLUSTERS.incrementAndGet());
        config.put("high-availability.storage-dir", dir.resolve("ha").toString());
        config.put("high-availability.zookeeper.session-timeout", "3s");
        config.putAll(overrides);
        return config;
    }

    /**
     * Starts {@code jobManagers} JobManagers and {@code taskManagers} TaskManagers (and a
     * ZooKeeper server of its own if {@code zooKeeper} is null). JobManager 1 leads; the others
     * stand by.
     */
    static HaCluster start(Path dir, ZooKeeperServer zooKeeper, int jobManagers, int taskManagers,
            Map<String, String> overrides) throws Exception {
        Files.createDirectories(dir);
        boolean owns = zooKeeper == null;
        ZooKeeperServer zk = owns ? ZooKeeperServer.start(dir) : zooKeeper;
        HaCluster cluster = null;
        try {
            cluster = new HaCluster(dir, zk, owns, haConfig(dir, zk, overrides));
            JobManager first = cluster.startJobManager();
            // TaskManagers follow whoever leads, so they start while the first JobManager does;
            // the other JobManagers only once it leads.
            for (int i = 0; i < taskManagers; i++) {
                cluster.startTaskManager();
            }
            cluster.awaitLeader(first);
            for (int i = 1; i < jobManagers; i++) {
                cluster.startJobManager();
            }
            for (JobManager jm : cluster.jobManagers) {
                jm.address();
            }
            cluster.client = new ClusterClient(Configuration.fromMap(cluster.config), first.address(),
                    FAILOVER_TIMEOUT);
            cluster.awaitTaskManagers(taskManagers);
            return cluster;
        } catch (Exception | Error e) {
            System.err.println("HA cluster in " + dir + " failed to start:\n" + TestCluster.logTails(dir, 60));
            if (cluster != null) {
                cluster.close();
            } else if (owns) {
                zk.close();
            }
            throw e;
        }
    }

    /** {@code -D key=value} options that make a CLI command find this cluster's leader. */
    List<String> clientOptions() {
        List<String> options = new ArrayList<>();
        for (String key : List.of("high-availability.type", "high-availability.zookeeper.quorum",
                "high-availability.zookeeper.root", "high-availability.storage-dir",
                "high-availability.zookeeper.session-timeout")) {
            options.add("-D");
            options.add(key + "=" + config.get(key));
        }
        return options;
    }

    // ------------------------------------------------------------------ JobManagers

    /** Starts JobManager N+1; it leads if no one else does. */
    JobManager startJobManager() throws IOException {
        String name = "jobmanager-" + (jobManagers.size() + 1);
        Path addressFile = dir.resolve(name + ".address");
        List<String> jvm = new ArrayList<>(ChildJvm.JOBMANAGER_OPTIONS);
        jvm.add("-D" + Failpoints.FILE_PROPERTY + "=" + failpointsFile());
        List<String> args = new ArrayList<>(List.of("jobmanager", "--address-file", addressFile.toString()));
        args.addAll(ChildJvm.configOptions(config));
        JobManager jm = new JobManager(name, ChildJvm.start(jvm, args, dir, log(name)), addressFile);
        jobManagers.add(jm);
        return jm;
    }

    List<JobManager> jobManagers() {
        return List.copyOf(jobManagers);
    }

    /** The JobManagers whose processes are alive (also frozen ones), in start order. */
    List<JobManager> liveJobManagers() {
        return jobManagers.stream().filter(jm -> jm.process.isAlive()).toList();
    }

    /** The leader as published in ZooKeeper now (address and session id), or null while there is none. */
    LeaderInfo leaderInfo() {
        try {
            return retrieval.awaitLeader(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The JobManager process whose address ZooKeeper names as the leader's, if any. */
    Optional<JobManager> leader() {
        LeaderInfo info = leaderInfo();
        if (info == null) {
            return Optional.empty();
        }
        return jobManagers.stream().filter(jm -> jm.address().equals(info.address())).findFirst();
    }

    /** Waits until ZooKeeper names {@code jm} as the leader; returns its leader info. */
    LeaderInfo awaitLeader(JobManager jm) {
        String address = jm.address();
        return await(jm + " leads").atMost(STARTUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .failFast(jm.name + " exited", () -> !jm.process.isAlive())
                .until(this::leaderInfo, info -> info != null && info.address().equals(address));
    }

    /**
     * Waits until another JobManager than {@code old} leads, in a session other than
     * {@code oldSession}; returns it.
     */
    JobManager awaitNewLeader(JobManager old, LeaderInfo oldSession, Duration timeout) {
        return awaitNewLeader(old, oldSession, timeout, Duration.ofMillis(50));
    }

    /** {@link #awaitNewLeader(JobManager, LeaderInfo, Duration)}, looking every {@code pollInterval}. */
    JobManager awaitNewLeader(JobManager old, LeaderInfo oldSession, Duration timeout, Duration pollInterval) {
        LeaderInfo info = await("a JobManager other than " + old + " leads").atMost(timeout)
                .pollInterval(pollInterval)
                .until(this::leaderInfo, i -> i != null && !i.address().equals(old.address())
                        && !i.sessionId().equals(oldSession.sessionId()));
        return jobManagers.stream().filter(jm -> jm.address().equals(info.address())).findFirst()
                .orElseThrow(() -> new AssertionError("the leader " + info + " is none of " + jobManagers));
    }

    /** SIGKILL of {@code leader}, which leads now; returns the JobManager that takes over. */
    JobManager killLeaderAndAwaitTheNext(JobManager leader) throws InterruptedException {
        LeaderInfo session = leaderInfo();
        kill(leader);
        return awaitNewLeader(leader, session, FAILOVER_TIMEOUT);
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill(JobManager jm) throws InterruptedException {
        jm.process.destroyForcibly();
        jm.process.waitFor();
    }

    /** SIGSTOP: the process freezes, its sockets stay open, its ZooKeeper session runs out. */
    void pause(JobManager jm) throws IOException, InterruptedException {
        signal(jm.process, "STOP");
    }

    /** SIGCONT after {@link #pause}. */
    void resume(JobManager jm) throws IOException, InterruptedException {
        signal(jm.process, "CONT");
    }

    static void signal(Process process, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true)
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Waits until {@code jm}'s log contains {@code text} (e.g. "FAILPOINT x reached"). */
    void awaitLog(JobManager jm, String text, Duration timeout) {
        await(jm.name + " logs '" + text + "'").atMost(timeout).pollInterval(Duration.ofMillis(50))
                .failFast(jm.name + " exited", () -> !jm.process.isAlive())
                .until(() -> logText(jm.name).contains(text));
    }

    private Path failpointsFile() {
        return dir.resolve("failpoints");
    }

    /** From now on, whichever JobManager gets to the failpoint {@code name} stops there for good. */
    void armFailpoint(String name) throws IOException {
        Files.writeString(failpointsFile(), name + "\n");
    }

    /** No JobManager stops at a failpoint from now on (one stopped before stays stopped). */
    void disarmFailpoints() throws IOException {
        Files.deleteIfExists(failpointsFile());
    }

    /** Waits until {@code jm} reached the failpoint {@code name}. */
    void awaitFailpoint(JobManager jm, String name, Duration timeout) {
        awaitLog(jm, "FAILPOINT " + name + " reached", timeout);
    }

    /** The leader's overview, asked of {@code jm} directly (a standby answers UNAVAILABLE: a CliException). */
    ClusterOverview overviewOf(JobManager jm) {
        try (ClusterClient direct = new ClusterClient(jm.address())) {
            return direct.overview();
        }
    }

    /**
     * The overview asked of {@code jm} with a bare gRPC stub, so that a standby's answer (a
     * StatusRuntimeException, UNAVAILABLE) reaches the test as the JobManager sent it.
     */
    ClusterOverview rawOverview(JobManager jm) {
        ManagedChannel channel = Rpc.channel(jm.address());
        try {
            return DispatcherGatewayGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getClusterOverview(Empty.getDefaultInstance());
        } finally {
            Rpc.shutdown(channel);
        }
    }

    /** The job's status asked of {@code jm} directly, not of whoever leads (a CliException if it does not lead). */
    JobStatus statusAt(JobManager jm, String jobId) {
        try (ClusterClient direct = new ClusterClient(jm.address())) {
            return direct.status(jobId);
        }
    }

    // ------------------------------------------------------------------ TaskManagers

    /** Starts another TaskManager; returns its index. */
    int addTaskManager() throws IOException {
        startTaskManager();
        return taskManagers.size() - 1;
    }

    /** SIGKILL of TaskManager {@code index}, and wait until the process is gone. */
    void killTaskManager(int index) throws InterruptedException {
        taskManagers.get(index).destroyForcibly();
        taskManagers.get(index).waitFor();
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

    /** The indexes of the TaskManager processes that are alive. */
    List<Integer> liveTaskManagers() {
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < taskManagers.size(); i++) {
            if (taskManagers.get(i).isAlive()) {
                live.add(i);
            }
        }
        return live;
    }

    /**
     * Waits until the leader has exactly {@code count} TaskManagers registered, after some were
     * killed (unlike {@link #awaitTaskManagers}, a dead TaskManager process is no failure).
     */
    void awaitRegisteredTaskManagers(int count, Duration timeout) {
        await(count + " TaskManagers registered at the leader").atMost(timeout).pollInterval(Duration.ofMillis(100))
                .ignoreException(CliException.class)
                .until(() -> overview().getTaskManagersCount() == count);
    }

    /** SIGSTOP of TaskManager {@code index}: it freezes, heartbeats stop, its files stay. */
    void pauseTaskManager(int index) throws IOException, InterruptedException {
        signal(taskManagers.get(index), "STOP");
    }

    /** SIGCONT after {@link #pauseTaskManager}. */
    void resumeTaskManager(int index) throws IOException, InterruptedException {
        signal(taskManagers.get(index), "CONT");
    }

    /** The index of the TaskManager whose id (as in a job status) is {@code tmId}, found in the logs. */
    int taskManagerIndex(String tmId) {
        for (int i = 0; i < taskManagers.size(); i++) {
            if (logText("taskmanager-" + i).contains("TaskManager " + tmId + " registered")) {
                return i;
            }
        }
        throw new AssertionError("no TaskManager log names " + tmId);
    }

    void startTaskManager() throws IOException {
        String name = "taskmanager-" + taskManagers.size();
        List<String> args = new ArrayList<>(List.of("taskmanager"));
        args.addAll(ChildJvm.configOptions(config));
        args.addAll(List.of("-D", "taskmanager.data-dir=" + taskManagerDir(taskManagers.size())));
        taskManagers.add(ChildJvm.start(ChildJvm.TASKMANAGER_OPTIONS, args, dir, log(name)));
    }

    int taskManagerCount() {
        return taskManagers.size();
    }

    Path taskManagerDir(int index) {
        return dir.resolve("taskmanager-" + index);
    }

    /** Waits until the leader has exactly {@code count} TaskManagers registered. */
    void awaitTaskManagers(int count) {
        await(count + " TaskManagers registered at the leader").atMost(STARTUP_TIMEOUT)
                .pollInterval(Duration.ofMillis(50)).ignoreException(CliException.class)
                .failFast("a TaskManager exited", () -> taskManagers.stream().anyMatch(p -> !p.isAlive()))
                .until(() -> overview().getTaskManagersCount() == count);
    }

    // ------------------------------------------------------------------ jobs, through the leader

    ClusterOverview overview() {
        return client.overview();
    }

    /** Submits through the leader with the given job id. */
    String submit(String jobId, String jobClass, Map<String, String> params, int parallelism) {
        return client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(jobClass).putAllParams(params)
                .setParallelism(parallelism).build()).getJobId();
    }

    /** Submits {@code request} through the leader. */
    String submit(SubmitJobRequest request) {
        return client.submit(request).getJobId();
    }

    /** Submits a job with its jar. */
    String submitJar(SubmitJobRequest request, Path jar) {
        return client.submitJar(request, jar).getJobId();
    }

    /** The job's status at the leader; a CliException while no leader knows the job. */
    JobStatus status(String jobId) {
        return client.status(jobId);
    }

    JobResult result(String jobId) {
        return client.result(jobId);
    }

    /** The job's checkpoint statistics at the leader (GetJobCheckpoints); a CliException while no leader knows the job. */
    JobCheckpoints checkpoints(String jobId) {
        return client.checkpoints(jobId);
    }

    /**
     * Waits until the leader reports the job ended and returns its result. Errors while no
     * leader answers, or while a new leader has not recovered the job yet, are waited out.
     */
    JobResult awaitResult(String jobId, Duration timeout) {
        try {
            await("job " + jobId + " ends").atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .ignoreException(CliException.class)
                    .until(() -> JobRunner.isTerminal(status(jobId).getState()));
        } catch (ConditionTimeoutException e) {
            String last;
            try {
                last = JobRunner.progressLine(status(jobId));
            } catch (RuntimeException error) {
                last = error.toString();
            }
            throw new AssertionError("job " + jobId + " did not end within " + timeout + ": " + last, e);
        }
        return client.result(jobId);
    }

    // ------------------------------------------------------------------ durable state

    /** {@code <storage-dir>/default}: job-graphs/, job-result-store/, jobs/. */
    Path clusterStorage() {
        return ha.clusterStorage().toLocalPath();
    }

    Path jobGraphFile(String jobId) {
        return clusterStorage().resolve("job-graphs").resolve(jobId + ".json");
    }

    Path resultStore() {
        return clusterStorage().resolve("job-result-store");
    }

    Path dirtyResult(String jobId) {
        return resultStore().resolve(jobId + ".dirty.json");
    }

    Path cleanResult(String jobId) {
        return resultStore().resolve(jobId + ".clean.json");
    }

    /** The job's own directory; cleanup deletes it. */
    Path jobDirectory(String jobId) {
        return ha.jobDirectory(jobId).toLocalPath();
    }

    /** Names of the files in the result store that belong to the job (also temp files). */
    List<String> resultFiles(String jobId) throws IOException {
        if (!Files.isDirectory(resultStore())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(resultStore())) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(jobId + ".")
                    || n.startsWith("." + jobId + ".")).sorted().toList();
        }
    }

    /** Regular files under TaskManager {@code index}'s partitions/&lt;jobId&gt;/. */
    List<Path> partitionFiles(int index, String jobId) throws IOException {
        Path jobPartitions = taskManagerDir(index).resolve("partitions").resolve(jobId);
        if (!Files.isDirectory(jobPartitions)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(jobPartitions)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    // ------------------------------------------------------------------ logs

    Path dir() {
        return dir;
    }

    Path log(String name) {
        return dir.resolve("log").resolve(name + ".log");
    }

    String logText(String name) {
        try {
            Path log = log(name);
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many times {@code text} occurs in the log. */
    int count(String name, String text) {
        String log = logText(name);
        int count = 0;
        for (int at = log.indexOf(text); at >= 0; at = log.indexOf(text, at + text.length())) {
            count++;
        }
        return count;
    }

    /** Lines of every JobManager log that contain {@code text}, prefixed with the JobManager's name. */
    List<String> jobManagerLines(String text) {
        List<String> lines = new ArrayList<>();
        for (JobManager jm : jobManagers) {
            logText(jm.name).lines().filter(line -> line.contains(text)).forEach(line -> lines.add(jm.name + ": "
                    + line));
        }
        return lines;
    }

    // ------------------------------------------------------------------ the end

    private List<Process> processes() {
        List<Process> all = new ArrayList<>();
        jobManagers.forEach(jm -> all.add(jm.process));
        all.addAll(taskManagers);
        return all;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        try {
            retrieval.close();
        } catch (Exception ignored) {
            // closing anyway
        }
        ha.close();
        try {
            ChildJvm.killAll(processes());
        } finally {
            if (ownsZooKeeper) {
                zooKeeper.close();
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

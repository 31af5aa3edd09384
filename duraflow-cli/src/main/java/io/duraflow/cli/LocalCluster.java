package io.duraflow.cli;

import io.duraflow.config.Configuration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A cluster of separate local processes, managed through a work directory ({@link ProcessLauncher}
 * starts them, {@link StartupWait} waits until they are ready, {@link LocalZooKeeper} is the
 * ZooKeeper server of a cluster with high availability):
 * <pre>
 *   work-dir/
 *     jobmanager.address        host:port, written by the JobManager once it listens
 *     pids/jobmanager.pid       one file per process, holding its pid
 *     pids/taskmanager-N.pid
 *     log/jobmanager.log        each process's output
 *     log/taskmanager-N.log
 *     log/*.log.1 .. .log.5     the same of the 5 previous starts (.1 the newest)
 *     taskmanager-N/            each TaskManager's partitions and spill files
 * </pre>
 */
public final class LocalCluster {
    static final String ADDRESS_FILE = "jobmanager.address";

    private final Path workDir;
    private final Map<String, String> config;
    private final PrintSink out;
    private final ProcessLauncher launcher;

    /** Where progress lines go. */
    public interface PrintSink {
        void line(String text);
    }

    public LocalCluster(Path workDir, Map<String, String> config, PrintSink out) {
        this.workDir = workDir.toAbsolutePath().normalize();
        this.config = config;
        this.out = out;
        this.launcher = new ProcessLauncher(this.workDir, config);
    }

    public Path workDir() {
        return workDir;
    }

    /**
     * C1 only: on a small machine C2's compiler threads compete with the tasks for the cores, and
     * local jobs are short; measured faster for both the 10 M-word WordCount and the 300 M-record
     * demo on 2 cores. Production TaskManagers ('duraflow taskmanager') keep the JVM's default
     * tiered compilation, as do local clusters given {@link #TIERED_TASK_MANAGERS}.
     */
    public static final String DEFAULT_TASK_MANAGER_JVM_OPTIONS = "-Xms1g -Xmx1g -XX:TieredStopAtLevel=1";
    /** TaskManagers with the JVM's tiered compilation, as in production: for long jobs and benchmarks. */
    public static final String TIERED_TASK_MANAGERS = "-Xms1g -Xmx1g";

    private String taskManagerJvmOptions = DEFAULT_TASK_MANAGER_JVM_OPTIONS;

    /** The JVM options of the TaskManagers started after this call. */
    public LocalCluster taskManagerJvmOptions(String options) {
        this.taskManagerJvmOptions = java.util.Objects.requireNonNull(options, "options");
        return this;
    }

    private Integer taskManagerNice;

    /**
     * The {@code nice} level of the TaskManagers started after this call, in place of {@code
     * DURAFLOW_TASKMANAGER_NICE} or its default of 5; 0 runs them at the JobManagers' priority, as a
     * benchmark does that compares them with another engine's processes run at the default priority.
     */
    public LocalCluster taskManagerNice(int nice) {
        if (nice < 0 || nice > 19) {
            throw new IllegalArgumentException("a TaskManager's nice level is from 0 to 19, got " + nice);
        }
        this.taskManagerNice = nice;
        return this;
    }

    /**
     * Starts {@code jobManagers} JobManagers (more than one: with a ZooKeeper server and high
     * availability) and {@code taskManagers} TaskManagers, and waits until a leader runs and
     * every TaskManager registered with it. Returns the leader's address.
     */
    public String start(int taskManagers, int jobManagers, int jobManagerPort, Duration timeout)
            throws IOException, InterruptedException {
        if (taskManagers < 1) {
            throw new CliException("--taskmanagers must be at least 1");
        }
        if (jobManagers < 1) {
            throw new CliException("--jobmanagers must be at least 1");
        }
        // Checked before anything starts: a bad setting must not leave half a cluster behind.
        launcher.taskManagerPrefix(taskManagerNice == null ? ProcessLauncher.taskManagerNice()
                : ProcessLauncher.nicePrefix(taskManagerNice, System.getenv().getOrDefault("PATH", "")));
        List<Long> alive = alivePids();
        if (!alive.isEmpty()) {
            throw new CliException("a local cluster is already running in " + workDir + " (pids " + alive
                    + "); stop it with 'duraflow local stop'");
        }
        Files.createDirectories(workDir.resolve("pids"));
        Files.createDirectories(workDir.resolve("log"));
        Files.deleteIfExists(workDir.resolve(ADDRESS_FILE));
        Files.deleteIfExists(workDir.resolve(CLIENT_CONFIG));
        long deadline = System.nanoTime() + timeout.toNanos();
        String host = config.getOrDefault("jobmanager.rpc.address", "127.0.0.1");
        StartupWait startup = new StartupWait(this, out);

        Map<String, String> clusterSettings = new LinkedHashMap<>();
        clusterSettings.put("cluster.work-dir", workDir.toString());
        boolean ha = jobManagers > 1;
        if (ha) {
            LocalZooKeeper.start(launcher, startup, deadline, out, clusterSettings);
            writeClientConfig(clusterSettings);
        }

        // The port is chosen up front so the TaskManagers start together with the JobManager
        // (they retry registration until it listens) instead of after it.
        int port = jobManagerPort == 0 || ha ? ProcessLauncher.freePort() : jobManagerPort;
        List<Process> jms = new ArrayList<>();
        for (int i = 1; i <= jobManagers; i++) {
            String name = ha ? "jobmanager-" + i : "jobmanager";
            int jmPort = i == 1 ? port : ProcessLauncher.freePort();
            jms.add(launcher.spawn(name, "-Xmx512m", List.of("jobmanager", "--address-file",
                    workDir.resolve(name + ".address").toString(), "-D", "jobmanager.rpc.port=" + jmPort),
                    clusterSettings));
        }
        List<Process> tms = new ArrayList<>();
        for (int i = 1; i <= taskManagers; i++) {
            String name = "taskmanager-" + i;
            tms.add(launcher.spawn(name, taskManagerJvmOptions, List.of("taskmanager", "--jobmanager", host + ":" + port, "-D",
                    "taskmanager.data-dir=" + workDir.resolve(name)), clusterSettings));
        }
        String first = startup.awaitAddress(jms.get(0), ha ? "jobmanager-1" : "jobmanager", deadline);
        out.line((ha ? jobManagers + " JobManagers started, first" : "JobManager") + " listening on " + first
                + " (log: " + workDir.resolve("log") + ")");
        try (ClusterClient client = ha ? new ClusterClient(clientConfiguration(), first, timeout)
                : new ClusterClient(first)) {
            return startup.awaitRegistered(client, jms, tms, ha, taskManagers, deadline, timeout);
        } catch (Exception e) {
            if (!(e instanceof CliException)) {
                stop();
            }
            throw e instanceof CliException cli ? cli : new CliException(e.getMessage(), 1, e);
        }
    }

    /** The file in the work directory that tells clients how to find this cluster's leader. */
    public static final String CLIENT_CONFIG = "cluster.conf";

    private void writeClientConfig(Map<String, String> settings) throws IOException {
        StringBuilder text = new StringBuilder("# written by 'duraflow local start': how clients find the leader\n");
        for (Map.Entry<String, String> e : settings.entrySet()) {
            text.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        Files.writeString(workDir.resolve(CLIENT_CONFIG), text.toString(), StandardCharsets.UTF_8);
    }

    /**
     * What a client of this cluster needs: the settings it left in {@link #CLIENT_CONFIG} (how to
     * find its leader; only a cluster with high availability writes one), then the settings the
     * cluster was started with, which win as they do for the cluster's processes.
     */
    public Configuration clientConfiguration() throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        Path file = workDir.resolve(CLIENT_CONFIG);
        if (Files.exists(file)) {
            settings.putAll(readClientConfig(file));
        }
        settings.putAll(config);
        return Configuration.fromMap(settings);
    }

    public static Map<String, String> readClientConfig(Path file) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                settings.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        return settings;
    }

    /** The process of this cluster whose JobManager listens on {@code address} (host:port). */
    public ProcessHandle processListeningOn(String address) throws IOException {
        try (Stream<Path> files = Files.list(workDir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".address")).toList()) {
                if (Files.readString(file).trim().equals(address)) {
                    String name = file.getFileName().toString().replace(".address", "");
                    Optional<Long> pid = pid(workDir.resolve("pids").resolve(name + ".pid"));
                    Optional<ProcessHandle> process = pid.flatMap(ProcessHandle::of);
                    if (process.isPresent()) {
                        return process.get();
                    }
                }
            }
        }
        throw new CliException("no JobManager of the cluster in " + workDir + " listens on " + address);
    }

    public Path log(String name) {
        return launcher.log(name);
    }

    /** Stops every process of the cluster: SIGTERM, then SIGKILL after 5 s. Returns how many ran. */
    public int stop() throws IOException, InterruptedException {
        Path pids = workDir.resolve("pids");
        if (!Files.isDirectory(pids)) {
            return 0;
        }
        List<ProcessHandle> running = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(pids)) {
            files = list.toList();
        }
        for (Path file : files) {
            pid(file).flatMap(ProcessHandle::of).filter(LocalCluster::isRunning).ifPresent(running::add);
        }
        running.forEach(ProcessHandle::destroy);
        long start = System.nanoTime();
        for (Path file : files) {
            Optional<ProcessHandle> process = pid(file).flatMap(ProcessHandle::of).filter(running::contains);
            if (process.isEmpty()) {
                continue;
            }
            Path recordingNote = ClassDataSharing.recordingNote(workDir, processName(file));
            Duration grace = Files.exists(recordingNote) ? ClassDataSharing.RECORDER_GRACE : Duration.ofSeconds(5);
            while (isRunning(process.get()) && System.nanoTime() - start < grace.toNanos()) {
                Thread.sleep(20);
            }
            if (isRunning(process.get())) {
                process.get().destroyForcibly();
                ClassDataSharing.discardRecording(recordingNote);  // its archive may be cut short: never use it
            }
        }
        for (Path file : files) {
            ClassDataSharing.finishRecording(ClassDataSharing.recordingNote(workDir, processName(file)));
            Files.deleteIfExists(file);
        }
        try (Stream<Path> list = Files.list(workDir)) {
            for (Path file : list.filter(f -> f.getFileName().toString().endsWith(".address")).toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(workDir.resolve(CLIENT_CONFIG));
        return running.size();
    }

    private static String processName(Path pidFile) {
        return pidFile.getFileName().toString().replace(".pid", "");
    }

    /**
     * Alive and not a zombie: a process whose parent (an earlier 'duraflow local start') is gone
     * stays a zombie until init reaps it, which can take seconds in a container.
     */
    private static boolean isRunning(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            int end = stat.lastIndexOf(')');
            return end < 0 || end + 2 >= stat.length() || stat.charAt(end + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return process.isAlive();
        }
    }

    /** Pids of the cluster's processes that are still alive. */
    public List<Long> alivePids() throws IOException {
        Path pids = workDir.resolve("pids");
        List<Long> alive = new ArrayList<>();
        if (!Files.isDirectory(pids)) {
            return alive;
        }
        try (Stream<Path> list = Files.list(pids)) {
            for (Path file : list.sorted().toList()) {
                pid(file).flatMap(ProcessHandle::of).filter(LocalCluster::isRunning)
                        .ifPresent(p -> alive.add(p.pid()));
            }
        }
        return alive;
    }

    /** name -> pid of every process with a pid file, alive or not. */
    public Map<String, Long> processes() throws IOException {
        Map<String, Long> result = new java.util.TreeMap<>();
        Path pids = workDir.resolve("pids");
        if (!Files.isDirectory(pids)) {
            return result;
        }
        try (Stream<Path> list = Files.list(pids)) {
            for (Path file : list.toList()) {
                String name = file.getFileName().toString().replace(".pid", "");
                pid(file).ifPresent(pid -> result.put(name, pid));
            }
        }
        return result;
    }

    private static Optional<Long> pid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}

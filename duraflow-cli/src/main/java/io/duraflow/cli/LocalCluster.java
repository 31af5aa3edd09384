package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.rpc.proto.ClusterOverview;
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
 * A cluster of separate local processes, managed through a work directory:
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

    /** Where progress lines go. */
    public interface PrintSink {
        void line(String text);
    }

    public LocalCluster(Path workDir, Map<String, String> config, PrintSink out) {
        this.workDir = workDir.toAbsolutePath().normalize();
        this.config = config;
        this.out = out;
    }

    public Path workDir() {
        return workDir;
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
        taskManagerPrefix = taskManagerNice();
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

        Map<String, String> clusterSettings = new LinkedHashMap<>();
        clusterSettings.put("cluster.work-dir", workDir.toString());
        boolean ha = jobManagers > 1;
        if (ha) {
            int zkPort = freePort();
            Process zk = spawn("zookeeper", "-Xmx256m", List.of("zookeeper", "--port", Integer.toString(zkPort),
                    "--data-dir", workDir.resolve("zookeeper").toString()), Map.of());
            awaitPort(zk, "zookeeper", zkPort, deadline);
            out.line("ZooKeeper listening on 127.0.0.1:" + zkPort + " (log: " + log("zookeeper") + ")");
            clusterSettings.put("high-availability.type", "zookeeper");
            clusterSettings.put("high-availability.zookeeper.quorum", "127.0.0.1:" + zkPort);
            clusterSettings.putIfAbsent("high-availability.storage-dir", workDir.resolve("ha").toString());
            writeClientConfig(clusterSettings);
        }

        // The port is chosen up front so the TaskManagers start together with the JobManager
        // (they retry registration until it listens) instead of after it.
        int port = jobManagerPort == 0 || ha ? freePort() : jobManagerPort;
        List<Process> jms = new ArrayList<>();
        for (int i = 1; i <= jobManagers; i++) {
            String name = ha ? "jobmanager-" + i : "jobmanager";
            int jmPort = i == 1 ? port : freePort();
            jms.add(spawn(name, "-Xmx512m", List.of("jobmanager", "--address-file",
                    workDir.resolve(name + ".address").toString(), "-D", "jobmanager.rpc.port=" + jmPort),
                    clusterSettings));
        }
        List<Process> tms = new ArrayList<>();
        for (int i = 1; i <= taskManagers; i++) {
            String name = "taskmanager-" + i;
            // C1 only: on a small machine C2's compiler threads compete with the tasks for the cores,
            // and local jobs are short; measured faster for both the 10 M-word WordCount and the
            // 300 M-record demo on 2 cores. Production TaskManagers ('duraflow taskmanager') keep the
            // JVM's default tiered compilation.
            tms.add(spawn(name, "-Xms1g -Xmx1g -XX:TieredStopAtLevel=1", List.of("taskmanager", "--jobmanager", host + ":" + port, "-D",
                    "taskmanager.data-dir=" + workDir.resolve(name)), clusterSettings));
        }
        String first = awaitAddress(jms.get(0), ha ? "jobmanager-1" : "jobmanager", deadline);
        out.line((ha ? jobManagers + " JobManagers started, first" : "JobManager") + " listening on " + first
                + " (log: " + workDir.resolve("log") + ")");
        try (ClusterClient client = ha ? new ClusterClient(clientConfiguration(), first, timeout)
                : new ClusterClient(first)) {
            while (true) {
                checkAlive(tms, "taskmanager-");
                checkAlive(jms, ha ? "jobmanager-" : "jobmanager");
                ClusterOverview overview;
                try {
                    overview = client.overview();
                } catch (CliException e) {
                    overview = null;
                }
                if (overview != null && overview.getTaskManagersCount() >= taskManagers) {
                    int slots = overview.getTaskManagersList().stream().mapToInt(t -> t.getSlots()).sum();
                    out.line(taskManagers + " TaskManagers registered with " + slots + " slots at the leader "
                            + client.address() + " (logs: " + workDir.resolve("log") + ")");
                    if (!overview.getRestUrl().isEmpty()) {
                        out.line("Web UI and REST API at " + overview.getRestUrl() + "/");
                    }
                    return client.address();
                }
                if (System.nanoTime() > deadline) {
                    stop();
                    throw new CliException("the cluster did not come up within " + timeout.toSeconds() + " s; see "
                            + workDir.resolve("log"));
                }
                Thread.sleep(50);
            }
        } catch (Exception e) {
            if (!(e instanceof CliException)) {
                stop();
            }
            throw e instanceof CliException cli ? cli : new CliException(e.getMessage(), 1, e);
        }
    }

    private void checkAlive(List<Process> processes, String prefix) throws IOException, InterruptedException {
        for (int i = 0; i < processes.size(); i++) {
            if (!processes.get(i).isAlive()) {
                String name = prefix.endsWith("-") ? prefix + (i + 1) : prefix;
                stop();
                throw new CliException(name + " exited during start-up: " + lastError(log(name)));
            }
        }
    }

    private void awaitPort(Process process, String name, int port, long deadline)
            throws IOException, InterruptedException {
        while (true) {
            try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    stop();
                    throw new CliException(name + " exited during start-up: " + lastError(log(name)));
                }
                if (System.nanoTime() > deadline) {
                    stop();
                    throw new CliException(name + " did not start in time; see " + log(name));
                }
                Thread.sleep(50);
            }
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

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private String awaitAddress(Process jobManager, String name, long deadline)
            throws IOException, InterruptedException {
        Path file = workDir.resolve(name + ".address");
        while (true) {
            if (Files.exists(file)) {
                String address = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!address.isEmpty()) {
                    return address;
                }
            }
            if (!jobManager.isAlive()) {
                stop();
                throw new CliException(name + " exited during start-up: " + lastError(log(name)));
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new CliException(name + " did not start in time; see " + log(name));
            }
            Thread.sleep(20);
        }
    }

    /** What a TaskManager's command starts with ({@link #taskManagerNice()}); set by {@link #start}. */
    private List<String> taskManagerPrefix = List.of();

    private Process spawn(String name, String heap, List<String> args, Map<String, String> settings)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(name.startsWith("taskmanager") ? taskManagerPrefix : List.of());
        command.add(java);
        command.addAll(List.of(heap.split(" ")));
        command.add("-XX:+UseParallelGC");
        command.addAll(classDataSharing(name, recordingNote(name)));
        command.addAll(List.of("-cp", processClassPath(), Duraflow.class.getName()));
        // The subcommand, then the user's options, then ours: picocli keeps the last value of an
        // option, so what the cluster must decide (ports, directories) wins.
        command.add(args.get(0));
        Map<String, String> options = new LinkedHashMap<>(settings);
        options.putAll(config);
        for (Map.Entry<String, String> option : options.entrySet()) {
            command.add("-D");
            command.add(option.getKey() + "=" + option.getValue());
        }
        command.addAll(args.subList(1, args.size()));
        rotateLog(log(name), KEPT_LOGS);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log(name).toFile());
        Process process = builder.start();
        Files.writeString(workDir.resolve("pids").resolve(name + ".pid"), Long.toString(process.pid()));
        return process;
    }

    /** Per recorder, under the work directory: the archive it writes at exit, and where that goes once complete. */
    private static final String RECORDINGS = "cds-recordings";

    /** How long {@link #stop} waits for a process that writes a class-data archive at exit. */
    private static final Duration RECORDER_GRACE = Duration.ofSeconds(30);

    /**
     * Application class-data sharing: the first JobManager and TaskManager started from a build
     * record the classes they load into an archive next to the build's jars; later processes map
     * it and start about a third faster. The JVM ignores an archive that does not match the
     * class path (after a rebuild) and {@code DURAFLOW_CDS=off} turns this off.
     *
     * <p>A recorder writes to a temporary file named in {@code recordingNote}; {@link #stop}
     * moves it into place only once the recorder exited by itself. An archive cut short by a
     * SIGKILL while it was written would otherwise be kept and silently refused by every later
     * process (seen on a loaded machine: each TaskManager then loaded its classes from the jars).
     */
    private static List<String> classDataSharing(String name, Path recordingNote) throws IOException {
        if ("off".equalsIgnoreCase(System.getenv("DURAFLOW_CDS"))) {
            return List.of();
        }
        String role = name.startsWith("jobmanager") ? "jobmanager" : name.startsWith("taskmanager") ? "taskmanager" : null;
        Path archive = role == null ? null : archivePath(role, processClassPath());
        if (archive == null) {
            return List.of();
        }
        if (Files.exists(archive)) {
            return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        }
        boolean recorder = name.equals("jobmanager") || name.equals("jobmanager-1") || name.equals("taskmanager-1");
        if (!recorder) {
            return List.of();
        }
        Path recording = archive.resolveSibling(archive.getFileName() + "." + name + ".tmp");
        Files.createDirectories(recordingNote.getParent());
        Files.writeString(recordingNote, recording + "\n" + archive);
        return List.of("-XX:ArchiveClassesAtExit=" + recording, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }

    /**
     * How a local TaskManager is started at a lower CPU priority than the JobManagers: {@code nice
     * -n 5} (all its threads inherit it), or nothing where there is no {@code nice} or {@code
     * DURAFLOW_TASKMANAGER_NICE=0}. In a deployment the JobManager has a machine or container of its
     * own; a local cluster shares the cores, and a job that keeps every core busy starved the
     * control plane: a new leader took 0.8 s instead of 0.5 s from its election to the take-over of
     * the kept tasks in the batch-failover demo, and REST answers waited for a core. Under {@code
     * nice 5} a TaskManager gets about a third of the weight of a JobManager when both want a core;
     * a core nobody else wants still goes to the TaskManagers.
     */
    static List<String> taskManagerNice() {
        return taskManagerNice(System.getenv("DURAFLOW_TASKMANAGER_NICE"), System.getenv().getOrDefault("PATH", ""));
    }

    /** {@link #taskManagerNice()} for a setting of {@code DURAFLOW_TASKMANAGER_NICE} (null: unset) and a {@code PATH}. */
    static List<String> taskManagerNice(String setting, String path) {
        int nice = 5;
        if (setting != null && !setting.isBlank()) {
            try {
                nice = Integer.parseInt(setting.trim());
            } catch (NumberFormatException e) {
                throw new CliException("DURAFLOW_TASKMANAGER_NICE must be a number from 0 to 19 (got '" + setting
                        + "'); unset it for the default of 5, or set 0 to run TaskManagers at the JobManager's priority");
            }
            if (nice < 0 || nice > 19) {
                throw new CliException("DURAFLOW_TASKMANAGER_NICE must be from 0 to 19 (got " + nice + "); unset it for"
                        + " the default of 5, or set 0 to run TaskManagers at the JobManager's priority");
            }
        }
        if (nice == 0) {
            return List.of();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nice"))) {
                return List.of(Path.of(dir, "nice").toString(), "-n", Integer.toString(nice));
            }
        }
        return List.of();
    }

    /**
     * Where the class-data archive of {@code role}'s processes ("jobmanager" or "taskmanager")
     * with this class path is kept: next to the directory of its first entry (for a build,
     * {@code duraflow-cli/target/}); null if there is no such writable directory.
     */
    static Path archivePath(String role, String classPath) {
        if (classPath.isEmpty()) {
            return null;
        }
        Path first = Path.of(classPath.split(java.io.File.pathSeparator)[0]).toAbsolutePath();
        Path directory = first.getParent() == null ? null : first.getParent().getParent();
        if (directory == null || !Files.isWritable(directory)) {
            return null;
        }
        return directory.resolve("duraflow-" + role + "-" + classPathStamp(classPath) + ".jsa");
    }

    /**
     * The class path of the cluster's processes: this JVM's, unless {@code duraflow.classpath}
     * names a leaner one (the benchmark runs with Apache Flink's jars, which the processes do not need).
     */
    private static String processClassPath() {
        return System.getProperty("duraflow.classpath", System.getProperty("java.class.path", ""));
    }

    /** Changes whenever a class path entry changes, so a rebuild records a fresh archive. */
    private static String classPathStamp(String classPath) {
        long hash = 1125899906842597L;
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            java.io.File file = new java.io.File(entry);
            hash = 31 * hash + entry.hashCode();
            hash = 31 * hash + file.length();
            hash = 31 * hash + file.lastModified();
        }
        return Long.toHexString(hash);
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

    /** Earlier logs of each process that a start keeps: name.log.1 (the newest) .. name.log.5. */
    static final int KEPT_LOGS = 5;

    /**
     * Moves {@code log} to {@code log.1}, {@code log.1} to {@code log.2} and so on, dropping
     * {@code log.<kept>}: a start on an existing work directory must not overwrite the logs of
     * the previous run, which may be the only evidence of a crash. An empty log is not kept.
     */
    static void rotateLog(Path log, int kept) throws IOException {
        if (!Files.exists(log) || Files.size(log) == 0) {
            return;
        }
        Files.deleteIfExists(rotated(log, kept));
        for (int i = kept - 1; i >= 1; i--) {
            Path older = rotated(log, i);
            if (Files.exists(older)) {
                Files.move(older, rotated(log, i + 1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(log, rotated(log, 1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static Path rotated(Path log, int generation) {
        return log.resolveSibling(log.getFileName() + "." + generation);
    }

    public Path log(String name) {
        return workDir.resolve("log").resolve(name + ".log");
    }

    /** The last line of a log that says what went wrong. */
    static String lastError(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                String line = lines.get(i);
                if (line.startsWith("duraflow: ")) {
                    return line.substring("duraflow: ".length());
                }
            }
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).contains("ERROR")) {
                    return lines.get(i);
                }
            }
        } catch (IOException ignored) {
            // fall through
        }
        return "see " + log;
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
            Path recordingNote = recordingNote(processName(file));
            Duration grace = Files.exists(recordingNote) ? RECORDER_GRACE : Duration.ofSeconds(5);
            while (isRunning(process.get()) && System.nanoTime() - start < grace.toNanos()) {
                Thread.sleep(20);
            }
            if (isRunning(process.get())) {
                process.get().destroyForcibly();
                discardRecording(recordingNote);  // its archive may be cut short: never use it
            }
        }
        for (Path file : files) {
            finishRecording(recordingNote(processName(file)));
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

    private Path recordingNote(String processName) {
        return workDir.resolve(RECORDINGS).resolve(processName);
    }

    private static String processName(Path pidFile) {
        return pidFile.getFileName().toString().replace(".pid", "");
    }

    /**
     * Moves a recorder's archive into place if the recorder exited by itself (its note is still
     * there) and wrote one; otherwise deletes what it left. A no-op for non-recorders.
     */
    static void finishRecording(Path note) throws IOException {
        if (!Files.exists(note)) {
            return;
        }
        List<String> lines = Files.readAllLines(note);
        Files.delete(note);
        if (lines.size() != 2) {
            return;
        }
        Path recording = Path.of(lines.get(0));
        Path archive = Path.of(lines.get(1));
        if (Files.isRegularFile(recording) && Files.size(recording) > 0 && !Files.exists(archive)) {
            Files.move(recording, archive, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            pruneArchives(archive, KEPT_ARCHIVES);
        } else {
            Files.deleteIfExists(recording);
        }
    }

    /** Archives kept per role: a few class paths in use side by side (a build, a benchmark's leaner one). */
    static final int KEPT_ARCHIVES = 4;

    /**
     * Deletes all but the {@code kept} newest archives of {@code archive}'s role next to it: every
     * rebuild records a new one (40-50 MB each), and a checkout rebuilt all day had collected 2.6 GB
     * of them. An archive in use by a running process stays readable (its file is mapped).
     */
    static void pruneArchives(Path archive, int kept) throws IOException {
        String name = archive.getFileName().toString();
        int stamp = name.lastIndexOf('-');
        if (stamp < 0 || !name.endsWith(".jsa")) {
            return;
        }
        String prefix = name.substring(0, stamp + 1);
        List<Path> archives;
        try (Stream<Path> files = Files.list(archive.toAbsolutePath().getParent())) {
            archives = files.filter(f -> {
                String n = f.getFileName().toString();
                return n.startsWith(prefix) && n.endsWith(".jsa") && n.indexOf('-', prefix.length()) < 0;
            }).collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        }
        archives.sort(java.util.Comparator.comparing((Path f) -> {
            try {
                return Files.getLastModifiedTime(f).toMillis();
            } catch (IOException e) {
                return 0L;
            }
        }).reversed());
        for (Path old : archives.subList(Math.min(kept, archives.size()), archives.size())) {
            if (!old.equals(archive)) {
                Files.deleteIfExists(old);
            }
        }
    }

    /** A recorder was killed: whatever it wrote is deleted and never used. */
    static void discardRecording(Path note) throws IOException {
        if (!Files.exists(note)) {
            return;
        }
        List<String> lines = Files.readAllLines(note);
        if (!lines.isEmpty()) {
            Files.deleteIfExists(Path.of(lines.get(0)));
        }
        Files.delete(note);
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

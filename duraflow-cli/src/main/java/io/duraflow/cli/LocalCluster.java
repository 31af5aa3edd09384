package io.duraflow.cli;

import io.duraflow.rpc.proto.ClusterOverview;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

    Path workDir() {
        return workDir;
    }

    /** Starts a JobManager and {@code taskManagers} TaskManagers and waits until all registered. */
    public String start(int taskManagers, int jobManagerPort, Duration timeout) throws IOException, InterruptedException {
        if (taskManagers < 1) {
            throw new CliException("--taskmanagers must be at least 1");
        }
        List<Long> alive = alivePids();
        if (!alive.isEmpty()) {
            throw new CliException("a local cluster is already running in " + workDir + " (pids " + alive
                    + "); stop it with 'duraflow local stop'");
        }
        Files.createDirectories(workDir.resolve("pids"));
        Files.createDirectories(workDir.resolve("log"));
        Files.deleteIfExists(workDir.resolve(ADDRESS_FILE));
        long deadline = System.nanoTime() + timeout.toNanos();

        // The port is chosen up front so the TaskManagers start together with the JobManager
        // (they retry registration until it listens) instead of after it.
        int port = jobManagerPort == 0 ? freePort() : jobManagerPort;
        String host = config.getOrDefault("jobmanager.rpc.address", "127.0.0.1");
        List<String> jmArgs = new ArrayList<>(List.of("jobmanager", "--address-file",
                workDir.resolve(ADDRESS_FILE).toString(), "-D", "jobmanager.rpc.port=" + port));
        Process jobManager = spawn("jobmanager", "-Xmx512m", jmArgs);
        List<Process> tms = new ArrayList<>();
        for (int i = 1; i <= taskManagers; i++) {
            String name = "taskmanager-" + i;
            tms.add(spawn(name, "-Xmx1g", List.of("taskmanager", "--jobmanager", host + ":" + port, "-D",
                    "taskmanager.data-dir=" + workDir.resolve(name))));
        }
        String address = awaitAddress(jobManager, deadline);
        out.line("JobManager listening on " + address + " (log: " + log("jobmanager") + ")");
        try (ClusterClient client = new ClusterClient(address)) {
            while (true) {
                for (int i = 0; i < tms.size(); i++) {
                    if (!tms.get(i).isAlive()) {
                        String name = "taskmanager-" + (i + 1);
                        stop();
                        throw new CliException(name + " exited during start-up: " + lastError(log(name)));
                    }
                }
                ClusterOverview overview = client.overview();
                if (overview.getTaskManagersCount() >= taskManagers) {
                    int slots = overview.getTaskManagersList().stream().mapToInt(t -> t.getSlots()).sum();
                    out.line(taskManagers + " TaskManagers registered with " + slots + " slots (logs: "
                            + workDir.resolve("log") + ")");
                    return address;
                }
                if (System.nanoTime() > deadline) {
                    stop();
                    throw new CliException("TaskManagers did not register within " + timeout.toSeconds() + " s; see "
                            + workDir.resolve("log"));
                }
                Thread.sleep(50);
            }
        }
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private String awaitAddress(Process jobManager, long deadline) throws IOException, InterruptedException {
        Path file = workDir.resolve(ADDRESS_FILE);
        while (true) {
            if (Files.exists(file)) {
                String address = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!address.isEmpty()) {
                    return address;
                }
            }
            if (!jobManager.isAlive()) {
                stop();
                throw new CliException("the JobManager exited during start-up: " + lastError(log("jobmanager")));
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new CliException("the JobManager did not start in time; see " + log("jobmanager"));
            }
            Thread.sleep(20);
        }
    }

    private Process spawn(String name, String heap, List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, heap, "-XX:+UseParallelGC",
                "-cp", System.getProperty("java.class.path"), Duraflow.class.getName()));
        command.addAll(args);
        for (Map.Entry<String, String> option : config.entrySet()) {
            command.add("-D");
            command.add(option.getKey() + "=" + option.getValue());
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log(name).toFile());
        Process process = builder.start();
        Files.writeString(workDir.resolve("pids").resolve(name + ".pid"), Long.toString(process.pid()));
        return process;
    }

    Path log(String name) {
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
            pid(file).flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive).ifPresent(running::add);
        }
        running.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (ProcessHandle process : running) {
            while (process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
        for (Path file : files) {
            Files.deleteIfExists(file);
        }
        Files.deleteIfExists(workDir.resolve(ADDRESS_FILE));
        return running.size();
    }

    /** Pids of the cluster's processes that are still alive. */
    List<Long> alivePids() throws IOException {
        Path pids = workDir.resolve("pids");
        List<Long> alive = new ArrayList<>();
        if (!Files.isDirectory(pids)) {
            return alive;
        }
        try (Stream<Path> list = Files.list(pids)) {
            for (Path file : list.sorted().toList()) {
                pid(file).flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive)
                        .ifPresent(p -> alive.add(p.pid()));
            }
        }
        return alive;
    }

    /** name -> pid of every process with a pid file, alive or not. */
    Map<String, Long> processes() throws IOException {
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

    Optional<String> address() throws IOException {
        Path file = workDir.resolve(ADDRESS_FILE);
        return Files.exists(file) ? Optional.of(Files.readString(file).trim()) : Optional.empty();
    }

    private static Optional<Long> pid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}

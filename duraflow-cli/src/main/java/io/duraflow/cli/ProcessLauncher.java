package io.duraflow.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the processes of a local cluster, each in a JVM of its own ({@code duraflow jobmanager},
 * {@code taskmanager} or {@code zookeeper}), with its output in {@code log/<name>.log} and its pid
 * in {@code pids/<name>.pid} under the work directory, and reads what went wrong from those logs.
 */
final class ProcessLauncher {
    private final Path workDir;
    /** The settings the cluster was started with: each process gets them after the cluster's own. */
    private final Map<String, String> config;
    /** What a TaskManager's command starts with ({@link #taskManagerNice()}); set by {@link LocalCluster#start}. */
    private List<String> taskManagerPrefix = List.of();

    ProcessLauncher(Path workDir, Map<String, String> config) {
        this.workDir = workDir;
        this.config = config;
    }

    Path workDir() {
        return workDir;
    }

    void taskManagerPrefix(List<String> prefix) {
        taskManagerPrefix = prefix;
    }

    static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    Process spawn(String name, String heap, List<String> args, Map<String, String> settings)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(name.startsWith("taskmanager") ? taskManagerPrefix : List.of());
        command.add(java);
        List<String> jvmOptions = List.of(heap.trim().split("\\s+"));
        command.addAll(jvmOptions);
        command.addAll(collector(jvmOptions));
        command.addAll(ClassDataSharing.jvmOptions(name, ClassDataSharing.recordingNote(workDir, name)));
        command.addAll(List.of("-cp", ClassDataSharing.processClassPath(), Duraflow.class.getName()));
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

    /**
     * The parallel collector unless {@code jvmOptions} choose one ({@code -XX:+UseG1GC}, ...): a JVM
     * given two collectors does not start ("Multiple garbage collectors selected").
     */
    static List<String> collector(List<String> jvmOptions) {
        boolean chosen = jvmOptions.stream().anyMatch(option -> option.startsWith("-XX:+Use")
                && option.endsWith("GC"));
        return chosen ? List.of() : List.of("-XX:+UseParallelGC");
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
        return nicePrefix(nice, path);
    }

    /** {@code nice -n <nice>} from {@code path}, or nothing for 0 or where there is no {@code nice}. */
    static List<String> nicePrefix(int nice, String path) {
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
}

package io.duraflow.cli;

import java.util.Map;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts {@code java -cp <test classpath> io.duraflow.cli.Duraflow <args>} as a child process:
 * the same classes the test JVM runs, without depending on {@code target/lib} or {@code bin/}
 * (its class directories packed into jars, with a class-data archive: {@link ChildJvmClassPath}),
 * except the in-process HDFS's server jar ({@code hadoop-client-minicluster}).
 */
final class ChildJvm {
    /** Client commands: C1 only, for a quick start. */
    static final List<String> CLIENT_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** The JobManager holds collected results (up to collect.max-bytes, 64 MiB, per job). */
    static final List<String> JOBMANAGER_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /**
     * C1 only, as local clusters run their TaskManagers: about 1.3 CPU s less per start, and the
     * integration tests start about a hundred; the serial collector, as two test JVMs already keep
     * both cores busy. A test whose job is CPU-heavy takes {@link #TASKMANAGER_C2_OPTIONS}.
     */
    static final List<String> TASKMANAGER_OPTIONS = List.of("-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /**
     * With C2, for CPU-heavy jobs (TaskManagerFailureIT's 40 M words ran out of their timeouts on a
     * loaded machine with C1 only).
     */
    static final List<String> TASKMANAGER_C2_OPTIONS = List.of("-Xmx768m", "-XX:+UseParallelGC");

    private static final ChildJvmClassPath CLASSPATH = ChildJvmClassPath.prepare(resolveClasspath(),
            Path.of("target", "child-jvm").toAbsolutePath());
    /** Children still to kill if the test JVM exits without closing them (e.g. a test timed out). */
    private static final Set<Process> STARTED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> STARTED.forEach(Process::destroyForcibly),
                "kill-child-jvms"));
    }

    private ChildJvm() {}

    /**
     * Failsafe may start the test JVM from a manifest-only booter jar, whose java.class.path names
     * only that jar; it publishes the real test classpath as {@code surefire.test.class.path}.
     */
    private static String resolveClasspath() {
        String classpath = System.getProperty("surefire.test.class.path");
        if (classpath == null || classpath.isBlank()) {
            classpath = System.getProperty("java.class.path");
        }
        boolean hasDuraflow = Arrays.stream(classpath.split(File.pathSeparator)).map(Path::of)
                .anyMatch(entry -> Files.isRegularFile(entry.resolve("io/duraflow/cli/Duraflow.class"))
                        || entry.getFileName().toString().startsWith("duraflow-cli"));
        if (!hasDuraflow) {
            throw new IllegalStateException("the test classpath has no io.duraflow.cli.Duraflow (neither target/classes"
                    + " nor the duraflow-cli jar), child processes could not start: " + classpath);
        }
        // The in-process HDFS (FileMergingHdfsIT) runs in the test JVM only: its server jar stays
        // off the children's class path, so they reach it with the client jars bin/duraflow ships.
        return Arrays.stream(classpath.split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("hadoop-client-minicluster"))
                .collect(java.util.stream.Collectors.joining(File.pathSeparator));
    }

    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        // No hsperfdata file per JVM: nothing here attaches tools to them, and the tests start hundreds.
        command.add("-XX:-UsePerfData");
        command.addAll(CLASSPATH.archiveOptions());
        command.add("-cp");
        command.add(CLASSPATH.classPath());
        command.add(Duraflow.class.getName());
        command.addAll(args);
        return command;
    }

    /** Starts the command in {@code workingDir} with stdout and stderr going to {@code log}. */
    static Process start(List<String> jvmOptions, List<String> args, Path workingDir, Path log) throws IOException {
        Files.createDirectories(log.getParent());
        return track(new ProcessBuilder(command(jvmOptions, args)).directory(workingDir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }

    /** Kills the process when the test JVM exits, unless it ended before. */
    static Process track(Process process) {
        STARTED.add(process);
        process.onExit().thenRun(() -> STARTED.remove(process));
        return process;
    }

    /** SIGKILL of every process, waits for them; fails if one is still alive afterwards. */
    static void killAll(List<Process> processes) {
        for (Process process : processes) {
            process.destroyForcibly();
        }
        for (Process process : processes) {
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Long> alive = processes.stream().filter(p -> p.toHandle().isAlive()).map(Process::pid).toList();
        if (!alive.isEmpty()) {
            throw new AssertionError("processes still alive after SIGKILL: " + alive);
        }
    }

    /** The last {@code lines} lines of a log, or a note that it cannot be read. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** {@code -D key=value} arguments for every entry of {@code config}. */
    static List<String> configOptions(Map<String, String> config) {
        List<String> options = new ArrayList<>();
        config.forEach((key, value) -> {
            options.add("-D");
            options.add(key + "=" + value);
        });
        return options;
    }
}

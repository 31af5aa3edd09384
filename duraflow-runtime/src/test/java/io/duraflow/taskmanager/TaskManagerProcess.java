package io.duraflow.taskmanager;

import io.duraflow.config.Configuration;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TaskManager in a process of its own, for tests that kill one with SIGKILL: {@code
 * TaskManagerProcess <jobmanager host:port> [key=value]...}. {@link #start} runs it from the test
 * classpath.
 */
public final class TaskManagerProcess {
    private TaskManagerProcess() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            settings.put(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        TaskManagerRunner runner = TaskManagerRunner.start(Configuration.fromMap(settings), args[0], 60_000);
        System.out.println("TaskManager " + runner.taskManagerId() + " started");
        runner.awaitTermination();
    }

    /** Starts one that registers with the JobManager at {@code jobManager}; its output goes to {@code log}. */
    static Process start(String jobManager, Map<String, String> settings, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath(),
                TaskManagerProcess.class.getName(), jobManager));
        settings.forEach((key, value) -> command.add(key + "=" + value));
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        return process;
    }

    /**
     * Surefire may start the test JVM from a manifest-only booter jar, whose java.class.path names
     * only that jar; it publishes the real test classpath as {@code surefire.test.class.path}.
     */
    private static String classpath() {
        String classpath = System.getProperty("surefire.test.class.path");
        if (classpath == null || classpath.isBlank()) {
            classpath = System.getProperty("java.class.path");
        }
        return String.join(File.pathSeparator, classpath.split(File.pathSeparator));
    }
}

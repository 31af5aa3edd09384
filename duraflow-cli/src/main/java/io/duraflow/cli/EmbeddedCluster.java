package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A JobManager and TaskManagers inside this JVM, talking gRPC on loopback as separate processes
 * would: what {@code duraflow run --embedded} runs a job on, without starting and stopping
 * processes. Its work directory (HA storage, data) is a new temporary one, deleted on close; no
 * REST server, no metrics.
 */
final class EmbeddedCluster implements AutoCloseable {
    private final Path workDir;
    private final JobManagerRunner jobManager;
    private final List<TaskManagerRunner> taskManagers;

    private EmbeddedCluster(Path workDir, JobManagerRunner jobManager, List<TaskManagerRunner> taskManagers) {
        this.workDir = workDir;
        this.jobManager = jobManager;
        this.taskManagers = taskManagers;
    }

    /** Starts a JobManager and {@code taskManagers} TaskManagers of {@code slots} slots each. */
    static EmbeddedCluster start(Configuration base, int taskManagers, int slots) throws Exception {
        Path workDir = Files.createTempDirectory("duraflow-embedded-");
        Map<String, String> settings = new HashMap<>(base.toMap());
        settings.put("cluster.work-dir", workDir.toString());
        settings.keySet().removeIf(key -> key.startsWith("high-availability."));  // one JobManager, nothing to elect
        settings.put("jobmanager.rpc.address", "127.0.0.1");
        settings.put("jobmanager.rpc.port", "0");
        settings.put("taskmanager.rpc.address", "127.0.0.1");
        settings.put("taskmanager.rpc.port", "0");
        settings.put("taskmanager.slots", Integer.toString(slots));
        settings.put("rest.port", "-1");
        settings.remove("metrics.prometheus.port");
        Configuration config = Configuration.fromMap(settings);
        JobManagerRunner jobManager = JobManagerRunner.start(config);
        List<TaskManagerRunner> started = new ArrayList<>();
        EmbeddedCluster cluster = new EmbeddedCluster(workDir, jobManager, started);
        try {
            for (int i = 0; i < taskManagers; i++) {
                started.add(TaskManagerRunner.start(config, cluster.address(), 30_000));
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    String address() {
        return "127.0.0.1:" + jobManager.port();
    }

    @Override
    public void close() {
        for (TaskManagerRunner taskManager : taskManagers) {
            taskManager.close();
        }
        jobManager.close();
        try (Stream<Path> files = Files.walk(workDir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            System.err.println("duraflow: cannot delete " + workDir + ": " + e.getMessage());
        }
    }
}

package io.duraflow.embedded;

import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JobManager and TaskManagers inside this JVM, talking gRPC on loopback as separate processes
 * would: what {@code duraflow run --embedded} runs a job on, and what users' tests start
 * ({@code DuraflowCluster}). Standalone (one JobManager, nothing to elect), no REST server unless
 * configured, no Prometheus endpoints unless {@code metrics.prometheus.port} is 0 (then each process
 * gets a free port; a fixed port or range from the base configuration is dropped, as the
 * processes of one JVM would collide on it); its work directory (HA storage, data) is a new temporary one, deleted on
 * close. The JobManager keeps its address when it is restarted, so the TaskManagers find the new one.
 */
public final class InProcessCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InProcessCluster.class);
    private static final long REGISTRATION_TIMEOUT_MS = 30_000;

    private final Path workDir;
    private final Configuration config;
    private final List<TaskManagerRunner> taskManagers = new ArrayList<>();
    private final List<Throwable> fatalErrors = new CopyOnWriteArrayList<>();
    private JobManagerRunner jobManager;

    private InProcessCluster(Path workDir, Configuration config) {
        this.workDir = workDir;
        this.config = config;
    }

    /**
     * Starts a JobManager and {@code taskManagers} TaskManagers with the options of {@code base}
     * (their slots from {@code taskmanager.slots}).
     */
    public static InProcessCluster start(Configuration base, int taskManagers) throws Exception {
        Path workDir = Files.createTempDirectory("duraflow-in-process-");
        Map<String, String> settings = new HashMap<>(base.toMap());
        settings.keySet().removeIf(key -> key.startsWith("high-availability."));
        if (!"0".equals(settings.get("metrics.prometheus.port"))) {
            settings.remove("metrics.prometheus.port");
        }
        settings.put("cluster.work-dir", workDir.toString());
        settings.put("jobmanager.rpc.address", "127.0.0.1");
        settings.put("jobmanager.rpc.port", Integer.toString(freePort()));
        settings.put("taskmanager.rpc.address", "127.0.0.1");
        settings.put("taskmanager.rpc.port", "0");
        settings.putIfAbsent("rest.port", "-1");
        InProcessCluster cluster = new InProcessCluster(workDir, Configuration.fromMap(settings));
        try {
            cluster.jobManager = JobManagerRunner.start(cluster.config);
            for (int i = 0; i < taskManagers; i++) {
                cluster.startTaskManager();
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** host:port of the JobManager. */
    public String address() {
        return "127.0.0.1:" + config.get(JobManagerOptions.RPC_PORT);
    }

    /**
     * Starts one more TaskManager; returns its index. A fatal error on its main thread (a process
     * would exit) stops it as a crash would and is kept for {@link #fatalErrors}: this JVM is
     * the caller's, not the TaskManager's to end.
     */
    public synchronized int startTaskManager() throws Exception {
        int index = taskManagers.size();
        AtomicReference<TaskManagerRunner> started = new AtomicReference<>();
        TaskManagerRunner taskManager = TaskManagerRunner.startEmbedded(config, address(), REGISTRATION_TIMEOUT_MS,
                error -> {
                    LOG.error("In-process TaskManager {}: fatal error in its main thread; it stops as a crash would"
                            + " (a TaskManager process exits)", index, error);
                    fatalErrors.add(error);
                    // Off its own main thread, which closing it waits for.
                    Thread stop = new Thread(() -> stopIfRunning(index, started.get()), "stop-taskmanager-" + index);
                    stop.setDaemon(true);
                    stop.start();
                });
        started.set(taskManager);
        taskManagers.add(taskManager);
        return index;
    }

    private synchronized void stopIfRunning(int index, TaskManagerRunner runner) {
        if (runner != null && index < taskManagers.size() && taskManagers.get(index) == runner) {
            taskManagers.set(index, null);
            runner.close();
        }
    }

    /**
     * The URL of a running TaskManager's Prometheus endpoint ({@code http://127.0.0.1:port/metrics}).
     *
     * @throws IllegalStateException if the cluster was started without {@code metrics.prometheus.port} 0
     */
    public synchronized String taskManagerMetricsUrl(int index) {
        TaskManagerRunner taskManager = index < taskManagers.size() ? taskManagers.get(index) : null;
        if (taskManager == null) {
            throw new IllegalArgumentException("TaskManager " + index + " is not running");
        }
        if (taskManager.metricsPort() < 0) {
            throw new IllegalStateException("the cluster's TaskManagers have no Prometheus endpoint: start it with"
                    + " metrics.prometheus.port set to 0");
        }
        return "http://127.0.0.1:" + taskManager.metricsPort() + "/metrics";
    }

    /** The fatal errors of this cluster's TaskManagers so far, each of which stopped its TaskManager. */
    public List<Throwable> fatalErrors() {
        return List.copyOf(fatalErrors);
    }

    /** Stops a TaskManager as a crash would: its tasks end and its connection drops. */
    public synchronized void stopTaskManager(int index) {
        TaskManagerRunner taskManager = taskManagers.set(index, null);
        if (taskManager == null) {
            throw new IllegalArgumentException("TaskManager " + index + " is not running");
        }
        taskManager.close();
    }

    /** Stops the JobManager and starts a new one on the same storage and address; it recovers the running jobs. */
    public void restartJobManager() throws Exception {
        jobManager.close();
        jobManager = JobManagerRunner.start(config);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Stops everything and deletes the work directory. */
    @Override
    public synchronized void close() {
        for (TaskManagerRunner taskManager : taskManagers) {
            if (taskManager != null) {
                taskManager.close();
            }
        }
        taskManagers.clear();
        if (jobManager != null) {
            jobManager.close();
        }
        try {
            LocalFileSystem.INSTANCE.deleteRecursively(FsPath.of(workDir));
        } catch (IOException e) {
            System.err.println("duraflow: cannot delete " + workDir + ": " + e.getMessage());
        }
    }
}

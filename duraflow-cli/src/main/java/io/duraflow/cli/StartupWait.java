package io.duraflow.cli;

import io.duraflow.rpc.proto.ClusterOverview;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Waits for the processes of a starting local cluster: ZooKeeper accepting connections, a
 * JobManager's address file, every TaskManager registered with the leader. A process that exits
 * first, or the deadline, stops the whole cluster and ends the start with a one-line error (from
 * that process's log).
 */
final class StartupWait {
    private final LocalCluster cluster;
    private final LocalCluster.PrintSink out;

    StartupWait(LocalCluster cluster, LocalCluster.PrintSink out) {
        this.cluster = cluster;
        this.out = out;
    }

    void checkAlive(List<Process> processes, String prefix) throws IOException, InterruptedException {
        for (int i = 0; i < processes.size(); i++) {
            if (!processes.get(i).isAlive()) {
                String name = prefix.endsWith("-") ? prefix + (i + 1) : prefix;
                cluster.stop();
                throw new CliException(name + " exited during start-up: "
                        + ProcessLauncher.lastError(cluster.log(name)));
            }
        }
    }

    void awaitPort(Process process, String name, int port, long deadline)
            throws IOException, InterruptedException {
        while (true) {
            try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    cluster.stop();
                    throw new CliException(name + " exited during start-up: "
                            + ProcessLauncher.lastError(cluster.log(name)));
                }
                if (System.nanoTime() > deadline) {
                    cluster.stop();
                    throw new CliException(name + " did not start in time; see " + cluster.log(name));
                }
                Thread.sleep(50);
            }
        }
    }

    String awaitAddress(Process jobManager, String name, long deadline)
            throws IOException, InterruptedException {
        Path file = cluster.workDir().resolve(name + ".address");
        while (true) {
            if (Files.exists(file)) {
                String address = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!address.isEmpty()) {
                    return address;
                }
            }
            if (!jobManager.isAlive()) {
                cluster.stop();
                throw new CliException(name + " exited during start-up: "
                        + ProcessLauncher.lastError(cluster.log(name)));
            }
            if (System.nanoTime() > deadline) {
                cluster.stop();
                throw new CliException(name + " did not start in time; see " + cluster.log(name));
            }
            Thread.sleep(20);
        }
    }

    /**
     * Polls the leader until {@code taskManagers} TaskManagers registered with it and returns its
     * address; a JobManager or TaskManager that exits, or the deadline, stops the cluster.
     */
    String awaitRegistered(ClusterClient client, List<Process> jms, List<Process> tms, boolean ha, int taskManagers,
            long deadline, Duration timeout) throws IOException, InterruptedException {
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
                        + client.address() + " (logs: " + cluster.workDir().resolve("log") + ")");
                if (!overview.getRestUrl().isEmpty()) {
                    out.line("Web UI and REST API at " + overview.getRestUrl() + "/");
                }
                return client.address();
            }
            if (System.nanoTime() > deadline) {
                cluster.stop();
                throw new CliException("the cluster did not come up within " + timeout.toSeconds() + " s; see "
                        + cluster.workDir().resolve("log"));
            }
            Thread.sleep(50);
        }
    }
}

package io.duraflow.simulation;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.simulation.SimScheduler.SimMailbox;
import io.duraflow.taskmanager.SimulatedTaskExecutors;
import io.duraflow.taskmanager.TaskExecutor;
import io.duraflow.taskmanager.TaskExecutorServices;
import io.duraflow.taskmanager.TaskManagerService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A TaskManager process of the simulation: the real {@link TaskExecutor} on a mailbox of the
 * process, its real {@link TaskManagerService} (called by the simulated network on the process's
 * "gRPC" mailbox), clients of the JobManager over the network, and simulated tasks ({@link
 * SimBatchTask}, {@link SimStreamTask}) whose "threads" are another mailbox of the process. A
 * restart is a new process with a new TaskManager id and an empty data directory, as a new
 * process that claims the directory of a killed one sweeps it.
 */
final class SimTaskManager {
    private final String tmId;
    private final String address;
    private final SimProcess process;
    final SimMailbox main;
    final SimMailbox rpc;
    final SimMailbox tasks;
    private final TaskExecutor executor;
    private final TaskManagerService service;
    /** The session of the leader this TaskManager follows, once its executor acted on the announcement. */
    private String followedSession = "";

    SimTaskManager(String tmId, String address, SimCluster cluster, SimScheduler scheduler, Configuration config,
            Path dataDirectory) throws Exception {
        this.tmId = tmId;
        this.address = address;
        this.process = new SimProcess(tmId);
        this.main = scheduler.mailbox(tmId + "/main", process);
        this.rpc = scheduler.mailbox(tmId + "/grpc", process);
        this.tasks = scheduler.mailbox(tmId + "/tasks", process);
        SimMailbox plans = scheduler.mailbox(tmId + "/plan-build", process);
        long timeoutMs = config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
        TaskExecutorServices services = new TaskExecutorServices(main,
                jobManager -> new SimJobManagerClient(cluster, process, jobManager, timeoutMs), tasks, plans,
                cluster::plan, (deployment, graph, environment) -> cluster.createTask(this, deployment, graph,
                        environment));
        Files.createDirectories(dataDirectory);
        this.executor = SimulatedTaskExecutors.create(tmId, config, following(cluster.zooKeeper().retrieval()),
                dataDirectory, services);
        this.service = SimulatedTaskExecutors.service(executor);
    }

    /** Leader retrieval that also notes, right after the executor's own mail for it, whom it follows. */
    private LeaderRetrieval following(LeaderRetrieval retrieval) {
        return new LeaderRetrieval() {
            @Override
            public void start(Consumer<LeaderInfo> listener) throws Exception {
                retrieval.start(info -> {
                    listener.accept(info);
                    if (info != null) {
                        main.execute(() -> followedSession = info.sessionId());
                    }
                });
            }

            @Override
            public LeaderInfo awaitLeader(Duration timeout) throws InterruptedException {
                return retrieval.awaitLeader(timeout);
            }

            @Override
            public void close() throws Exception {
                retrieval.close();
            }
        };
    }

    void start() throws Exception {
        SimulatedTaskExecutors.begin(executor, address);
    }

    String tmId() {
        return tmId;
    }

    String address() {
        return address;
    }

    SimProcess process() {
        return process;
    }

    TaskExecutor executor() {
        return executor;
    }

    TaskManagerService service() {
        return service;
    }

    String followedSession() {
        return followedSession;
    }

    /** SIGKILL: the process and everything in its mailboxes is gone; its resources are freed. */
    void kill() {
        process.kill();
        executor.close();
    }

    @Override
    public String toString() {
        return process.toString();
    }
}

package io.duraflow.cli;

import static io.duraflow.cli.StagedJobRuns.JOB;
import static io.duraflow.cli.StagedJobRuns.JOB_TIMEOUT;
import static io.duraflow.cli.StagedJobRuns.PARALLELISM;
import static io.duraflow.cli.StagedJobRuns.PARAMS;
import static io.duraflow.cli.StagedJobRuns.assertExactResult;
import static io.duraflow.cli.StagedJobRuns.awaitStatus;
import static io.duraflow.cli.StagedJobRuns.finished;
import static io.duraflow.cli.StagedJobRuns.running;
import static io.duraflow.cli.StagedJobRuns.finalAttempts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader change that costs no running work, batch, with real processes: the leader
 * JobManager is SIGKILLed while tasks of a {@link StagedJob} run on the TaskManagers (one slot
 * each, so the sources run in waves). The TaskManagers keep running them, report them when they
 * register with the new leader, and the new leader adopts them: no task that had started before
 * the crash runs again, and the result is exact. A TaskManager lost too while no leader is up
 * (its kept tasks run again, the others' work counts), and a leader frozen long enough to be
 * deposed that thaws after the adoption, are checked over many seeds by {@code
 * io.duraflow.simulation.ClusterSimulationBatchTest}, against the same control-plane classes.
 */
class LeaderChangeAdoptionIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    /** Sources long enough that the ones running at the crash still run when the new leader plans. */
    private static final Map<String, String> SLOW_SOURCES = Map.of("source-pause-ms", "3");

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static ZooKeeperServer zooKeeper;
    private HaCluster cluster;

    @BeforeAll
    static void startZooKeeper() throws IOException {
        zooKeeper = ZooKeeperServer.shared();
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theLeaderKilledWhileSourcesRunCostsNoRunningTask(TestInfo test) throws Exception {
        cluster = startCluster(Map.of());
        String jobId = "adopted";
        JobStatus before = submitAndAwaitTwoSourcesRunning(jobId);
        Map<TaskKey, Integer> started = startedTasks(before);

        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.startJobManager();
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        cluster.awaitLog(next, "Job " + jobId + " recovered", HaCluster.FAILOVER_TIMEOUT);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertExactResult(result);
        Map<TaskKey, Integer> attempts = finalAttempts(result.getStatus());
        started.forEach((task, attempt) -> assertThat(attempts.get(task))
                .as("attempt of %s, running or finished at the crash as #%d", task, attempt).isEqualTo(attempt));
        Map<TaskKey, String> recovery = recovery(result.getStatus());
        long adopted = recovery.values().stream().filter("ADOPTED"::equals).count();
        assertThat(adopted).as("tasks adopted running (or finished while no leader decided)").isGreaterThanOrEqualTo(2);
        System.out.printf("%s: %d tasks had started at the crash, %d adopted, none ran again%n",
                test.getDisplayName(), started.size(), adopted);
    }

    /**
     * Waits until the job event log on disk holds the split assignment of every started source
     * with an enumerator state after it: the log is written asynchronously (flushed right after
     * such a state), and a reader whose split the log lost runs again by design, not by a bug.
     */
    private void awaitSplitsLogged(String jobId, java.util.Set<TaskKey> started) {
        Path log = cluster.jobDirectory(jobId).resolve(io.duraflow.jobmanager.dispatcher.Dispatcher.JOB_EVENTS_DIRECTORY);
        java.util.Set<Integer> sources = new java.util.TreeSet<>();
        started.stream().filter(task -> task.vertex() == StagedJob.SOURCE).forEach(task -> sources.add(task.subtask()));
        await("the event log of " + jobId + " records the splits of sources " + sources).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    java.util.Set<Integer> assigned = new java.util.TreeSet<>();
                    java.util.Set<Integer> committed = new java.util.TreeSet<>();
                    for (var event : io.duraflow.jobmanager.events.JobEventReader.readAll(log).events()) {
                        if (event.hasSplitsAssigned()) {
                            assigned.add(event.getSplitsAssigned().getSubtask());
                        } else if (event.hasCoordinatorState()) {
                            committed.addAll(assigned);
                        }
                    }
                    return committed.containsAll(sources);
                });
    }

    private HaCluster startCluster(Map<String, String> overrides) throws Exception {
        return StagedJobRuns.startCluster(LOGS.watch(tempDir.resolve("cluster")), zooKeeper, overrides);
    }

    /**
     * Submits the job with slow sources and waits until 2 sources finished and 2 run, and the log
     * holds the running ones' splits.
     */
    private JobStatus submitAndAwaitTwoSourcesRunning(String jobId) {
        Map<String, String> params = new HashMap<>(PARAMS);
        params.putAll(SLOW_SOURCES);
        cluster.submit(jobId, JOB, params, PARALLELISM);
        JobStatus before = awaitStatus(cluster, jobId, s -> finished(s, StagedJob.SOURCE) >= 2
                && running(s, StagedJob.SOURCE) == 2, "2 sources finished, 2 running");
        awaitSplitsLogged(jobId, startedTasks(before).keySet());
        return before;
    }

    /** Deployed to a TaskManager: DEPLOYING (a batch task is confirmed running only as it ends) or RUNNING. */
    private static boolean deployed(TaskStatus task) {
        return task.getState().equals("DEPLOYING") || task.getState().equals("RUNNING");
    }

    /** Tasks deployed or FINISHED in the status, with their attempt. */
    private static Map<TaskKey, Integer> startedTasks(JobStatus status) {
        Map<TaskKey, Integer> started = new TreeMap<>();
        forEachTask(status, (key, task) -> {
            if (deployed(task) || task.getState().equals("FINISHED")) {
                started.put(key, task.getAttempt());
            }
        });
        return started;
    }

    private static Map<TaskKey, String> taskManagers(JobStatus status) {
        Map<TaskKey, String> where = new TreeMap<>();
        forEachTask(status, (key, task) -> where.put(key, task.getTmId()));
        return where;
    }

    private static Map<TaskKey, String> recovery(JobStatus status) {
        Map<TaskKey, String> recovery = new TreeMap<>();
        forEachTask(status, (key, task) -> recovery.put(key, task.getRecovery()));
        return recovery;
    }

    private static TaskKey firstRunning(JobStatus status) {
        Map<TaskKey, String> running = new TreeMap<>();
        forEachTask(status, (key, task) -> {
            if (deployed(task)) {
                running.put(key, task.getTmId());
            }
        });
        return running.keySet().iterator().next();
    }

    private static void forEachTask(JobStatus status, java.util.function.BiConsumer<TaskKey, TaskStatus> action) {
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                action.accept(new TaskKey(vertex.getId(), subtask), vertex.getTasks(subtask));
            }
        }
    }

}

package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.examples.RecoveryDemo;
import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the tests that crash parts of a cluster under a {@link StagedJob} run share
 * ({@link BatchRecoveryIT}, {@link ZooKeeperOutageIT}): the job and its parameters, its exact
 * result, the final attempt of each task, and waiting until the job event log holds finishes.
 */
final class StagedJobRuns {
    static final String JOB = StagedJob.class.getName();
    static final Map<String, String> PARAMS = Map.of("records", "4000000", "keys", "10000");
    static final int PARALLELISM = 4;
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

    private StagedJobRuns() {}

    /** The job FINISHED with exactly the sums per bucket that {@link RecoveryDemo#expected} computes. */
    static void assertExactResult(JobResult result) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        Map<Long, Long> sums = ExactResults.toMap(TestCluster.decode(result, JOB, PARAMS, PARALLELISM)
                .get(StagedJob.RESULT));
        long[] expected = RecoveryDemo.expected(Long.parseLong(PARAMS.get("records")),
                Long.parseLong(PARAMS.get("keys")));
        Map<Long, Long> expectedSums = new HashMap<>();
        for (int bucket = 0; bucket < expected.length; bucket++) {
            expectedSums.put((long) bucket, expected[bucket]);
        }
        assertSameEntries("sums per bucket", sums, expectedSums);
    }

    /** The last attempt of every task of the job's final status, which must list every task. */
    static Map<TaskKey, Integer> finalAttempts(JobStatus status) {
        for (VertexStatus vertex : status.getVerticesList()) {
            assertThat(vertex.getTasksCount()).as("task attempts of %s in the result", vertex.getName())
                    .isEqualTo(vertex.getParallelism());
        }
        return TaskRuns.attempts(status);
    }

    /**
     * Waits until the job event log records each of these finishes (task and attempt). A leader
     * shows a task FINISHED as soon as it hears of it and writes the finish to the job event log
     * right after; a crash in between would rightly cost that task. The tests wait for the log,
     * so that every task they count as finished was durable at the crash.
     */
    static void awaitFinishesLogged(HaCluster cluster, String jobId, Map<TaskKey, Integer> finished) {
        if (finished.isEmpty()) {
            return;
        }
        Path log = cluster.jobDirectory(jobId).resolve(Dispatcher.JOB_EVENTS_DIRECTORY);
        await("the event log of " + jobId + " records " + finished.keySet()).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    Set<TaskKey> logged = new HashSet<>();
                    for (JobEvent event : JobEventReader.readAll(log).events()) {
                        if (event.hasExecutionFinished()) {
                            var done = event.getExecutionFinished();
                            TaskKey task = new TaskKey(done.getVertex(), done.getSubtask());
                            Integer attempt = finished.get(task);
                            if (attempt != null && attempt == done.getAttempt()) {
                                logged.add(task);
                            }
                        }
                    }
                    return logged.equals(finished.keySet());
                });
    }

    /**
     * ZooKeeper (shared, must be up), 2 JobManagers (the first leads), 2 TaskManagers with one slot
     * each, so that every stage runs in waves.
     */
    static HaCluster startCluster(Path dir, ZooKeeperServer zooKeeper, Map<String, String> overrides)
            throws Exception {
        assertThat(zooKeeper.isAlive()).as("the shared ZooKeeper server runs").isTrue();
        Map<String, String> config = new HashMap<>(Map.of("taskmanager.slots", "1"));
        config.putAll(overrides);
        return HaCluster.start(dir, zooKeeper, 2, 2, config);
    }

    /** Waits for a status of the running job that meets {@code condition}; the job must not end before. */
    static JobStatus awaitStatus(HaCluster cluster, String jobId, java.util.function.Predicate<JobStatus> condition,
            String what) {
        return await(what).atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                .ignoreException(CliException.class)
                .until(() -> cluster.status(jobId), status -> {
                    assertThat(status.getState()).as("the job must not end before: %s", what)
                            .isEqualTo(JobState.JOB_RUNNING);
                    return condition.test(status);
                });
    }

    static int finished(JobStatus status, int vertex) {
        return status.getVertices(vertex).getFinished();
    }

    static int running(JobStatus status, int vertex) {
        return status.getVertices(vertex).getRunning();
    }
}

package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.types.Tuple3;
import io.duraflow.rpc.proto.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Event-time timers end to end: {@link EventTimeWindowCounts} counts per key per 1-second
 * tumbling window with keyed state and a timer at each window's end, and its output is exactly
 * what a direct computation over the generated records gives: without checkpoints, and with
 * checkpoints and a TaskManager crash mid-run, where the timers of the windows open at the
 * restored checkpoint fire after the restore and every window is committed exactly once.
 */
class EventTimeTimersTest {
    private static final long RECORDS = 20_000;
    private static final long KEYS = 7;
    /**
     * Records per second over both readers, of which the one with the split gets half: about 5 s of
     * input, so the crash comes mid-run.
     */
    private static final long RATE = 8_000;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"timers", "windows"})
    void windowCountsAreExactWithoutCheckpoints(String implementation) {
        JobOutcome outcome = cluster.run(EventTimeWindowCounts.class, Map.of("records", Long.toString(RECORDS),
                "keys", Long.toString(KEYS), "implementation", implementation), 2,
                Map.of("execution.runtime-mode", "streaming"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<Tuple3<Long, Long, Long>> counts = outcome.collected(EventTimeWindowCounts.RESULT);
        List<String> lines = counts.stream().map(EventTimeWindowCounts::formatLine).sorted().toList();
        List<String> expected = EventTimeWindowCounts.expectedLines(RECORDS, KEYS);
        assertThat(expected).as("windows of every key").hasSizeGreaterThan((int) (KEYS * 20));
        assertThat(lines).isEqualTo(expected);
    }

    /** The counts with event-time timers, then with the window API (on timers too), on both backends. */
    @ParameterizedTest
    @CsvSource({"heap,timers", "rocksdb,windows"})
    void everyWindowIsCommittedExactlyOnceThroughATaskManagerCrash(String backend, String implementation)
            throws Exception {
        Path output = dir.resolve("output");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        config.put("state.backend.type", backend);
        // Its own cluster: the test stops the TaskManager the job runs on.
        try (DuraflowCluster own = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            own.start();
            String jobId = own.submit(EventTimeWindowCounts.class, Map.of("records", Long.toString(RECORDS),
                    "keys", Long.toString(KEYS), "rate", Long.toString(RATE), "output", output.toString(),
                    "implementation", implementation), 2, config);

            // A completed checkpoint committed the windows that fired before it; others are open.
            await("window counts committed by a checkpoint").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !CommittedOutput.lines(output).isEmpty());
            int committedBeforeCrash = CommittedOutput.lines(output).size();
            assertThat(own.status(jobId).getState()).as("the job runs when its TaskManager stops")
                    .isEqualTo(JobState.JOB_RUNNING);
            own.startTaskManager();
            own.stopTaskManager(0);
            JobOutcome outcome = own.await(jobId, JOB_TIMEOUT);

            assertThat(outcome.finished()).as("%s", outcome).isTrue();
            assertThat(outcome.restarts()).as("restarts").isPositive();
            List<String> expected = EventTimeWindowCounts.expectedLines(RECORDS, KEYS);
            assertThat(committedBeforeCrash).as("windows committed before the crash").isLessThan(expected.size());
            assertThat(CommittedOutput.lines(output).stream().sorted().toList()).isEqualTo(expected);
            System.out.printf("event-time windows (%s) on %s: %d of %d committed before the crash, %d restarts%n",
                    implementation, backend, committedBeforeCrash, expected.size(), outcome.restarts());
        }
    }

}

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two keyed flows connected into one operator, end to end, each result equal to a direct
 * computation: a join with state on both sides through a TaskManager crash on either backend, an
 * interval join of out-of-order flows, and event-time timers that wait for the watermarks of both
 * inputs.
 */
class ConnectedFlowsTest {
    private static final long PERSONS = 2_000;
    private static final long AUCTIONS = 20_000;
    /** Auctions per second, the persons at a tenth of it: about 5 s of input, so the crash comes mid-run. */
    private static final long RATE = 4_000;
    /**
     * Events per second of the lagging flows: 3 s of input, so the watermarks, emitted every 200 ms,
     * rise many times before the end of input (unlimited, all would come before the first).
     */
    private static final long LAGGING_RATE = 4_000;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void aJoinWithStateOnBothSidesIsExactThroughATaskManagerCrash(String backend) throws Exception {
        Path output = dir.resolve("output");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        config.put("state.backend.type", backend);
        // Its own cluster: the test stops the TaskManager the job runs on.
        try (DuraflowCluster own = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            own.start();
            String jobId = own.submit(PersonAuctionJoin.class, Map.of("persons", Long.toString(PERSONS),
                    "auctions", Long.toString(AUCTIONS), "rate", Long.toString(RATE), "output", output.toString()),
                    2, config);

            await("sales committed by a checkpoint").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !CommittedOutput.lines(output).isEmpty());
            int committedBeforeCrash = CommittedOutput.lines(output).size();
            assertThat(own.status(jobId).getState()).as("the job runs when its TaskManager stops")
                    .isEqualTo(JobState.JOB_RUNNING);
            own.startTaskManager();
            own.stopTaskManager(0);
            JobOutcome outcome = own.await(jobId, JOB_TIMEOUT);

            assertThat(outcome.finished()).as("%s", outcome).isTrue();
            assertThat(outcome.restarts()).as("restarts").isPositive();
            List<String> expected = PersonAuctionJoin.expectedLines(PERSONS, AUCTIONS);
            assertThat(committedBeforeCrash).as("sales committed before the crash").isLessThan(expected.size());
            assertThat(CommittedOutput.lines(output).stream().sorted().toList()).isEqualTo(expected);
            System.out.printf("person-auction join on %s: %d of %d committed before the crash, %d restarts%n",
                    backend, committedBeforeCrash, expected.size(), outcome.restarts());
        }
    }

    @Test
    void aJoinWithStateOnBothSidesCollectsEveryPairOnce() {
        JobOutcome outcome = cluster.run(PersonAuctionJoin.class, Map.of("persons", "500", "auctions", "5000"), 2,
                Map.of("execution.runtime-mode", "streaming"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<Tuple3<Long, String, Long>> sales = outcome.collected(PersonAuctionJoin.RESULT);
        assertThat(sales.stream().map(PersonAuctionJoin::formatLine).sorted().toList())
                .isEqualTo(PersonAuctionJoin.expectedLines(500, 5_000));
    }

    @Test
    void anIntervalJoinOfOutOfOrderFlowsIsABruteForceJoin() {
        JobOutcome outcome = cluster.run(LaggingIntervalJoin.class, Map.of("records", "12000", "keys", "13",
                "rate", Long.toString(LAGGING_RATE)), 2,
                Map.of("execution.runtime-mode", "streaming"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<String> pairs = outcome.collected(LaggingIntervalJoin.RESULT);
        List<String> expected = LaggingIntervalJoin.expectedLines(12_000, 13);
        assertThat(expected).as("pairs to join").hasSizeGreaterThan(1_000);
        assertThat(pairs.stream().sorted().toList()).isEqualTo(expected);
    }

    @Test
    void anEventTimeTimerFiresOnceTheWatermarksOfBothInputsPassedIt() {
        JobOutcome outcome = cluster.run(LaggingWindowCounts.class, Map.of("records", "12000", "keys", "7",
                "rate", Long.toString(LAGGING_RATE)), 2,
                Map.of("execution.runtime-mode", "streaming"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<String> counts = outcome.collected(LaggingWindowCounts.RESULT);
        List<String> expected = LaggingWindowCounts.expectedLines(12_000, 7);
        assertThat(expected).as("windows of every key").hasSizeGreaterThan(7 * 10);
        assertThat(counts.stream().sorted().toList()).isEqualTo(expected);
    }

}

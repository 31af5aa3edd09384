package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkExpected;
import io.duraflow.examples.nexmark.NexmarkQueries;
import io.duraflow.rpc.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nexmark's joins and windowed queries in streaming mode, each result equal to the same query
 * computed directly over the generated events ({@link NexmarkExpected}); then through a
 * TaskManager crash with checkpoints, on the heap and in RocksDB, with exactly-once file output.
 * Event time runs at 1,000 events per second, so 12,000 events span 12 s of it.
 */
class NexmarkWindowedQueriesTest {
    private static final long EVENTS = 12_000;
    private static final long EVENT_RATE = 1_000;
    private static final long OUT_OF_ORDERNESS_MS = 30;
    private static final Duration WINDOW = Duration.ofSeconds(2);
    private static final Duration SLIDE = Duration.ofMillis(500);
    private static final Duration GAP = Duration.ofMillis(300);
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build();

    @TempDir
    Path dir;

    private static Map<String, String> params(String query, Path output, long rate) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("query", query);
        params.put("events", Long.toString(EVENTS));
        params.put("event-rate", Long.toString(EVENT_RATE));
        params.put("out-of-orderness", Long.toString(OUT_OF_ORDERNESS_MS));
        params.put("window", Long.toString(WINDOW.toMillis()));
        params.put("slide", Long.toString(SLIDE.toMillis()));
        params.put("gap", Long.toString(GAP.toMillis()));
        params.put("rate", Long.toString(rate));
        params.put("output", output.toString());
        return params;
    }

    /** The lines a correct run writes, sorted; for q4, the last average of each category. */
    private static List<String> expected(String query) {
        NexmarkExpected expected = new NexmarkExpected(NexmarkConfig.defaults()
                .withMaxOutOfOrdernessMs(OUT_OF_ORDERNESS_MS).withEventsPerSecond(EVENT_RATE), EVENTS);
        return expected.lines(query, WINDOW, SLIDE, GAP);
    }

    @ParameterizedTest
    @ValueSource(strings = {"q3", "q4", "q5", "q7", "q8", "q11"})
    void everyQueryEqualsItsDirectComputation(String query) {
        Path output = dir.resolve("output");
        JobOutcome outcome = cluster.run(NexmarkQueries.class, params(query, output, 0), 2,
                Map.of("execution.runtime-mode", "streaming"));
        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<String> expected = expected(query);
        assertThat(expected).as("the query finds something").hasSizeGreaterThan(3);
        assertThat(NexmarkExpected.comparable(query, CommittedOutput.lines(output))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"q3,heap", "q4,rocksdb", "q5,heap", "q7,rocksdb", "q8,heap", "q11,rocksdb"})
    void everyQueryIsExactlyOnceThroughATaskManagerCrash(String query, String backend) throws Exception {
        Path output = dir.resolve("output");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        config.put("state.backend.type", backend);
        try (DuraflowCluster own = DuraflowCluster.builder().taskManagers(1).slots(2).build()) {
            own.start();
            // About 3 s of input, so the crash comes mid-run.
            String jobId = own.submit(NexmarkQueries.class, params(query, output, 4_000), 2, config);
            await("a checkpoint completed").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                    .until(() -> Files.isDirectory(dir.resolve("checkpoints")) && hasCompletedCheckpoint());
            assertThat(own.status(jobId).getState()).as("the job runs when its TaskManager stops")
                    .isEqualTo(JobState.JOB_RUNNING);
            own.startTaskManager();
            own.stopTaskManager(0);
            JobOutcome outcome = own.await(jobId, JOB_TIMEOUT);

            assertThat(outcome.finished()).as("%s", outcome).isTrue();
            assertThat(outcome.restarts()).as("restarts").isPositive();
            assertThat(NexmarkExpected.comparable(query, CommittedOutput.lines(output))).isEqualTo(expected(query));
        }
    }

    private boolean hasCompletedCheckpoint() throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("checkpoints"))) {
            return files.anyMatch(file -> file.getFileName().toString().equals("_metadata"));
        }
    }
}

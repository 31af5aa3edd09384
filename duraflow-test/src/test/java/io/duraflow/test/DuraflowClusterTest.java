package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.types.Tuple2;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The in-process cluster as users' tests use it: jobs, results, a TaskManager crash, a JobManager restart. */
class DuraflowClusterTest {
    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(2).slots(2).build();

    private static Map<String, Long> expected(long words, long distinct) {
        Map<String, Long> counts = new HashMap<>();
        for (long i = 0; i < words; i++) {
            counts.merge(WordCount.word(i, distinct), 1L, Long::sum);
        }
        return counts;
    }

    private static Map<String, Long> counts(JobOutcome outcome) {
        List<Tuple2<String, Long>> records = outcome.collected(WordCount.RESULT);
        Map<String, Long> counts = new HashMap<>();
        records.forEach(record -> assertThat(counts.put(record.f0(), record.f1())).as("%s twice", record.f0()).isNull());
        return counts;
    }

    @Test
    void runsAJobAndDecodesWhatItCollected() {
        JobOutcome outcome = cluster.run(WordCount.class, Map.of("words", "10000", "distinct", "50"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        assertThat(counts(outcome)).isEqualTo(expected(10_000, 50));
    }

    @Test
    void aJobRunsOnThroughATaskManagerCrashAndAJobManagerRestart() throws Exception {
        Map<String, String> params = Map.of("words", "4000000", "distinct", "1000", "splits", "8");
        String jobId = cluster.submit(WordCount.class, params, 2, Map.of());
        await("tasks run").atMost(Duration.ofMinutes(1)).until(() -> cluster.status(jobId).getVerticesList().stream()
                .anyMatch(vertex -> vertex.getRunning() > 0));

        int spare = cluster.startTaskManager();
        cluster.stopTaskManager(0);
        cluster.restartJobManager();
        JobOutcome outcome = cluster.await(jobId, Duration.ofMinutes(2));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        assertThat(counts(outcome)).isEqualTo(expected(4_000_000, 1_000));
        assertThat(spare).isEqualTo(2);
    }

    @Test
    void aBoundedStreamingJobWithoutCheckpointsFinishesWithItsOutputCommitted(@TempDir Path dir) throws Exception {
        // No checkpoint will come to let the sinks commit and the tasks finish: they do both at the end of input.
        Path output = dir.resolve("sums");
        JobOutcome outcome = cluster.run(StreamingKeyedSum.class, Map.of("records", "20000", "keys", "101",
                "output", output.toString()), 2, Map.of("execution.runtime-mode", "streaming"));

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        assertThat(StreamingKeyedSum.verify(StreamingKeyedSum.readOutput(output), 20_000, 101)).isEmpty();
        try (var files = Files.list(output)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no uncommitted part is left")
                    .allMatch(name -> name.startsWith("part-"));
        }
    }

    @Test
    void anUnknownOptionFailsWhenTheClusterIsBuilt() {
        assertThatThrownBy(() -> DuraflowCluster.builder().config("taskmanager.slot", "2").build())
                .hasMessageContaining("taskmanager.slots");
    }
}

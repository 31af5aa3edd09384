package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.types.Tuple2;
import io.duraflow.examples.WordCount;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
    void anUnknownOptionFailsWhenTheClusterIsBuilt() {
        assertThatThrownBy(() -> DuraflowCluster.builder().config("taskmanager.slot", "2").build())
                .hasMessageContaining("taskmanager.slots");
    }
}

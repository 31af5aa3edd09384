package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.rpc.proto.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Side outputs and unions end to end: {@link SideOutputRouting} (a main and two side outputs, one
 * of them keyed again into event-time timers) and {@link UnionOfSources} (two sources of different
 * parallelism into a keyed sum and a map) in streaming and batch mode, and through a TaskManager
 * stop with checkpoints, where every output is exactly once.
 */
class SideOutputsAndUnionTest {
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(1);
    private static final Map<String, String> STREAMING = Map.of("execution.runtime-mode", "streaming");

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(3).build();

    @TempDir
    Path dir;

    @Test
    void eachSideOutputReachesItsOwnReadersWithItsTimestamps() {
        long records = 6_000;
        // About 1.5 s of input: watermarks (every 200 ms) fire most timers before the end of time.
        JobOutcome outcome = cluster.run(SideOutputRouting.class, Map.of("records", Long.toString(records),
                "rate", "4000"), 2, STREAMING);

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<Long> threes = outcome.collected(SideOutputRouting.MAIN);
        assertThat(threes).containsExactlyInAnyOrderElementsOf(
                LongStream.range(0, records).filter(n -> n % 3 == 0).boxed().toList());
        List<String> twos = outcome.collected(SideOutputRouting.TWOS_RESULT);
        assertThat(twos).containsExactlyInAnyOrderElementsOf(
                LongStream.range(0, records).filter(n -> n % 3 == 2).mapToObj(n -> "two " + n).toList());

        List<Tuple3<Long, Long, Long>> timed = outcome.collected(SideOutputRouting.TIMED);
        assertThat(timed).extracting(t -> t.f0() + "@" + t.f1()).containsExactlyInAnyOrderElementsOf(
                LongStream.range(0, records).filter(n -> n % 3 == 1)
                        .mapToObj(n -> n + "@" + (n + SideOutputRouting.DELAY_MS)).toList());
        assertThat(timed).allSatisfy(t -> assertThat(t.f2()).as("watermark at the timer of %s", t.f0())
                .isGreaterThanOrEqualTo(t.f1()));
        // Watermarks crossed the side output and its exchange while the job ran, not only at its end.
        long beforeTheEnd = timed.stream().filter(t -> t.f2() != Long.MAX_VALUE).count();
        assertThat(beforeTheEnd).as("timers fired by a watermark before the end of time").isGreaterThan(timed.size() / 4);
    }

    @Test
    void aUnionOfSourcesOfDifferentParallelismIsExactInStreamingAndBatch() {
        long records = 5_000;
        long keys = 11;
        for (String mode : List.of("streaming", "batch")) {
            JobOutcome outcome = cluster.run(UnionOfSources.class, Map.of("records", Long.toString(records),
                    "keys", Long.toString(keys)), 2, Map.of("execution.runtime-mode", mode));

            assertThat(outcome.finished()).as("%s: %s", mode, outcome).isTrue();
            List<Long> numbers = outcome.collected(UnionOfSources.NUMBERS);
            assertThat(numbers).as(mode).containsExactlyInAnyOrderElementsOf(
                    LongStream.rangeClosed(1, 2 * records).boxed().toList());
            List<Tuple2<Long, Long>> sums = outcome.collected(UnionOfSources.SUMS);
            // Streaming emits every key's running sum, batch its final one.
            Map<Long, Long> finalSums = new TreeMap<>();
            sums.forEach(sum -> finalSums.merge(sum.f0(), sum.f1(), Math::max));
            assertThat(finalSums).as(mode).isEqualTo(UnionOfSources.expectedSums(records, keys));
            assertThat(sums).as(mode).hasSize(mode.equals("batch") ? (int) keys : (int) (2 * records));
        }
    }

    @Test
    void aUnionIsExactlyOnceThroughATaskManagerStop() throws Exception {
        long records = 12_000;
        long keys = 13;
        Path output = dir.resolve("output");
        Map<String, String> config = new LinkedHashMap<>(STREAMING);
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        config.put("restart-strategy.fixed-delay.delay", "100ms");
        // Its own cluster: the test stops the TaskManager the job runs on.
        try (DuraflowCluster own = DuraflowCluster.builder().taskManagers(1).slots(3).build()) {
            own.start();
            // About 1.5 s of input per source, so the stop comes mid-run.
            String jobId = own.submit(UnionOfSources.class, Map.of("records", Long.toString(records),
                    "keys", Long.toString(keys), "rate", "8000", "output", output.toString()), 2, config);
            await("numbers committed by a checkpoint").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !CommittedOutput.lines(output.resolve("numbers")).isEmpty());
            assertThat(own.status(jobId).getState()).as("the job runs when its TaskManager stops")
                    .isEqualTo(JobState.JOB_RUNNING);
            own.startTaskManager();
            own.stopTaskManager(0);
            JobOutcome outcome = own.await(jobId, JOB_TIMEOUT);

            assertThat(outcome.finished()).as("%s", outcome).isTrue();
            assertThat(outcome.restarts()).as("restarts").isPositive();
            assertThat(CommittedOutput.lines(output.resolve("numbers"))).containsExactlyInAnyOrderElementsOf(
                    LongStream.rangeClosed(1, 2 * records).mapToObj(Long::toString).toList());
            // Exactly once: every record of a key made one running sum, each larger than the last.
            Map<Long, List<Long>> sumsByKey = new HashMap<>();
            for (String line : CommittedOutput.lines(output.resolve("sums"))) {
                String[] fields = line.split(",");
                sumsByKey.computeIfAbsent(Long.parseLong(fields[0]), k -> new ArrayList<>())
                        .add(Long.parseLong(fields[1]));
            }
            Map<Long, Long> expected = UnionOfSources.expectedSums(records, keys);
            assertThat(sumsByKey.keySet()).isEqualTo(expected.keySet());
            for (Map.Entry<Long, List<Long>> entry : sumsByKey.entrySet()) {
                long key = entry.getKey();
                long count = LongStream.rangeClosed(1, 2 * records).filter(n -> n % keys == key).count();
                assertThat(entry.getValue()).as("running sums of key %d", key).hasSize((int) count)
                        .doesNotHaveDuplicates().contains(expected.get(key));
                assertThat(entry.getValue().stream().mapToLong(Long::longValue).max().orElseThrow())
                        .isEqualTo(expected.get(key));
            }
        }
    }

}

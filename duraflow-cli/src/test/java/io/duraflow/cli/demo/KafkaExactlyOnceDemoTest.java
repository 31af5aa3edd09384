package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.cli.CliException;
import io.duraflow.cli.kafka.KeyProducer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of 'duraflow demo kafka-exactly-once'; KafkaExactlyOnceDemoIT runs the demo. */
class KafkaExactlyOnceDemoTest {
    @Test
    void theLongestPauseIsTheWidestGapBetweenArrivalsAroundTheCrash() {
        List<Long> arrivals = List.of(1_000L, 2_000L, 3_000L, 7_500L, 8_500L, 9_500L, 20_000L);
        // Killed at 3,400: the gap from 3,000 to 7,500 spans it.
        assertThat(CommittedOutputWatch.longestPause(arrivals, 3_400, 10_000)).isEqualTo(4_500);
        // A gap that ends after the window is not the crash's (the one before 20,000 is the end of the input).
        assertThat(CommittedOutputWatch.longestPause(arrivals, 8_000, 19_000)).isEqualTo(1_000);
        assertThat(CommittedOutputWatch.longestPause(List.of(5_000L), 0, 10_000)).isZero();
    }

    @Test
    void theExpectedCountsAddUpToTheRecords() {
        Map<String, Long> counts = KeyProducer.expectedCounts(10, 4);
        assertThat(counts).containsExactly(Map.entry("key-0", 3L), Map.entry("key-1", 3L), Map.entry("key-2", 2L),
                Map.entry("key-3", 2L));
        // More keys than records: only the keys that occur.
        assertThat(KeyProducer.expectedCounts(3, 10)).hasSize(3).allSatisfy((key, count) -> assertThat(count).isOne());
    }

    @Test
    void parametersAreCheckedWithAOneLineError() {
        KafkaExactlyOnceDemo.Settings defaults = KafkaExactlyOnceDemo.Settings.of(Map.of());
        assertThat(defaults).isEqualTo(new KafkaExactlyOnceDemo.Settings(1_000_000, 10_000, 25_000, 4));
        assertThat(KafkaExactlyOnceDemo.Settings.of(Map.of("records", "500", "rate", "100")).records()).isEqualTo(500);
        assertThatThrownBy(() -> KafkaExactlyOnceDemo.Settings.of(Map.of("records", "many")))
                .isInstanceOf(CliException.class).hasMessageContaining("must be numbers");
        assertThatThrownBy(() -> KafkaExactlyOnceDemo.Settings.of(Map.of("keys", "0")))
                .isInstanceOf(CliException.class).hasMessageContaining("0 < K <= 1000000");
        assertThatThrownBy(() -> KafkaExactlyOnceDemo.Settings.of(Map.of("output", "x")))
                .isInstanceOf(CliException.class).hasMessageContaining("not output");
    }
}

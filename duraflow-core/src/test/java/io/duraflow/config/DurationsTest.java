package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @ParameterizedTest
    @CsvSource({
        "500 ms, 500",
        "500ms, 500",
        "500, 500",
        "10 s, 10000",
        "10s, 10000",
        "10 seconds, 10000",
        "5 min, 300000",
        "5m, 300000",
        "1 h, 3600000",
        "2 d, 172800000",
        "2 DAYS, 172800000",
        "'  3 s  ', 3000",
        "0, 0",
    })
    void parsesNumbersWithUnits(String text, long expectedMillis) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(expectedMillis));
    }

    @Test
    void parsesSubMillisecondUnits() {
        assertThat(Durations.parse("250 us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(Durations.parse("7ns")).isEqualTo(Duration.ofNanos(7));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "ms", "1.5 s", "-1 s", "10 sec s", "10 weeks", "5 mins ago",
        "99999999999999999999 s", "9223372036854775807 d"})
    void rejectsMalformedDurations(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0 ms",
        "500, 500 ms",
        "1000, 1 s",
        "1500, 1500 ms",
        "10000, 10 s",
        "300000, 5 min",
        "3600000, 1 h",
        "5400000, 90 min",
        "172800000, 2 d",
    })
    void formatsInTheLargestExactUnit(long millis, String expected) {
        assertThat(Durations.format(Duration.ofMillis(millis))).isEqualTo(expected);
    }

    @Test
    void formatRoundTripsThroughParse() {
        for (Duration d : new Duration[] {Duration.ofNanos(1), Duration.ofNanos(1_001), Duration.ofMillis(1_001),
            Duration.ofSeconds(61), Duration.ofDays(400), Duration.ofSeconds(Long.MAX_VALUE)}) {
            assertThat(Durations.parse(Durations.format(d))).as("%s", d).isEqualTo(d);
        }
    }

    @Test
    void negativeDurationsHaveNoTextForm() {
        assertThatThrownBy(() -> Durations.format(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
    }
}

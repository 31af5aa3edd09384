package io.duraflow.examples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NexmarkExpectedTest {
    private static String q4(long category, long auctions, long sum) {
        return new JoinQueries.CategoryAverage(category, auctions, sum, (double) sum / auctions).toString();
    }

    @Test
    void q4OutputComparesAsEachCategorysLastUpdate() {
        List<String> written = List.of(q4(11, 2, 30), q4(10, 1, 5), q4(11, 1, 10), q4(10, 2, 9), q4(10, 3, 20));
        assertThat(NexmarkExpected.comparable("q4", written)).containsExactly(q4(10, 3, 20), q4(11, 2, 30));
        assertThat(NexmarkExpected.comparable("q5", List.of("b", "a"))).containsExactly("a", "b");
    }

    @Test
    void aRepeatedOrMissingQ4UpdateIsNotExactlyOnce() {
        assertThatThrownBy(() -> NexmarkExpected.comparable("q4", List.of(q4(10, 1, 5), q4(10, 1, 5), q4(10, 2, 9))))
                .hasMessageContaining("CategoryAverage[category=10: its updates count [1, 1, 2]");
        assertThatThrownBy(() -> NexmarkExpected.comparable("q4", List.of(q4(10, 2, 9))))
                .hasMessageContaining("[2]");
    }
}

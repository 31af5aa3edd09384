package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.CorruptDataException;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaEnumeratorStateTest {
    private static final KafkaEnumeratorState STATE = KafkaEnumeratorState.of(
            new KafkaSubscription.Topics(List.of("b", "a")),
            List.of(new TopicPartition("b", 1), new TopicPartition("a", 0), new TopicPartition("b", 0)));

    @Test
    void roundTripsTopicsAndPattern() {
        assertThat(KafkaEnumeratorState.fromBytes(STATE.toBytes(), "test")).isEqualTo(STATE);
        KafkaEnumeratorState pattern = KafkaEnumeratorState.of(
                new KafkaSubscription.TopicPattern(Pattern.compile("orders-.*", Pattern.CASE_INSENSITIVE)), List.of());
        assertThat(KafkaEnumeratorState.fromBytes(pattern.toBytes(), "test")).isEqualTo(pattern);
    }

    @Test
    void formatIsByteExact() {
        byte[] bytes = STATE.toBytes();
        byte[] body = {
            1,                      // version
            0, 2, 1, 'b', 1, 'a',   // topic list [b, a], in the order given
            2,                      // two topics with assigned partitions, sorted
            1, 'a', 1, 0,           // a: [0]
            1, 'b', 2, 0, 1,        // b: [0, 1]
        };
        assertThat(bytes).startsWith(body).hasSize(body.length + 4);
    }

    @Test
    void aFlippedBitIsNamedCorrupt() {
        byte[] bytes = STATE.toBytes();
        bytes[9] ^= 1;
        assertThatThrownBy(() -> KafkaEnumeratorState.fromBytes(bytes, "topics=[a] on host:9092"))
                .isInstanceOf(CorruptDataException.class)
                .hasMessage("the checkpointed state of the Kafka source enumerator of topics=[a] on host:9092 is"
                        + " corrupt (CRC32C mismatch); restore from another checkpoint");
    }

    @Test
    void anotherVersionOrTooShortIsCorrupt() {
        byte[] bytes = STATE.toBytes();
        bytes[0] = 9;
        assertThatThrownBy(() -> KafkaEnumeratorState.fromBytes(bytes, "x"))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("format version 9");
        assertThatThrownBy(() -> KafkaEnumeratorState.fromBytes(new byte[3], "x"))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("too short");
    }
}

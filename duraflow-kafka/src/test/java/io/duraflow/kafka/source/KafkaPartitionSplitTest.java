package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.CorruptDataException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KafkaPartitionSplitTest {
    private static final KafkaPartitionSplit UNBOUNDED = new KafkaPartitionSplit("orders", 3, 1234,
            KafkaPartitionSplit.NO_STOPPING_OFFSET);
    private static final KafkaPartitionSplit BOUNDED = new KafkaPartitionSplit("orders", 0, 0, 5000);

    @Test
    void roundTripsBoundedAndUnbounded() {
        for (KafkaPartitionSplit split : new KafkaPartitionSplit[] {UNBOUNDED, BOUNDED}) {
            assertThat(KafkaPartitionSplit.SERIALIZER.fromBytes(KafkaPartitionSplit.SERIALIZER.toBytes(split)))
                    .isEqualTo(split);
        }
    }

    @Test
    void splitIdIsTopicDashPartition() {
        assertThat(UNBOUNDED.splitId()).isEqualTo("orders-3").isEqualTo(UNBOUNDED.topicPartition().toString());
        assertThat(UNBOUNDED.isBounded()).isFalse();
        assertThat(BOUNDED.isBounded()).isTrue();
    }

    @Test
    void formatIsByteExact() {
        // version 1 | "orders" | partition 3 | 1234 as varint (0xD2 0x09) | unbounded
        assertThat(KafkaPartitionSplit.SERIALIZER.toBytes(UNBOUNDED)).containsExactly(
                1, 6, 'o', 'r', 'd', 'e', 'r', 's', 3, 0xD2 - 256, 0x09, 0);
    }

    @Test
    void anotherVersionIsCorruptData() {
        byte[] bytes = KafkaPartitionSplit.SERIALIZER.toBytes(BOUNDED);
        bytes[0] = 2;
        assertThatThrownBy(() -> KafkaPartitionSplit.SERIALIZER.fromBytes(bytes))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("version 2");
    }

    @Test
    void truncatedOrBadFlagIsCorruptData() {
        byte[] bytes = KafkaPartitionSplit.SERIALIZER.toBytes(BOUNDED);
        assertThatThrownBy(() -> KafkaPartitionSplit.SERIALIZER.fromBytes(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(CorruptDataException.class);
        byte[] badFlag = KafkaPartitionSplit.SERIALIZER.toBytes(UNBOUNDED);
        badFlag[badFlag.length - 1] = 7;
        assertThatThrownBy(() -> KafkaPartitionSplit.SERIALIZER.fromBytes(badFlag))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("orders-3");
    }
}

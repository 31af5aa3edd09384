package io.duraflow.api.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.MapFunction;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SplitEnumerator;
import org.junit.jupiter.api.Test;

class CheckpointAvailabilityProviderTest {
    interface DecliningMap extends MapFunction<Long, Long>, CheckpointAvailabilityProvider {}

    @Test
    void theExistingWaysToDeclineAreProvidersAvailableByDefault() {
        assertThat(CheckpointAvailabilityProvider.class).isAssignableFrom(SourceReader.class)
                .isAssignableFrom(SplitEnumerator.class).isAssignableFrom(SinkWriter.class)
                .isAssignableFrom(KeyedProcessFunction.class);
        SinkWriter<Long> writer = new SinkWriter<>() {
            @Override
            public void write(Long record) {}

            @Override
            public void finish() {}
        };
        assertThat(CheckpointAvailabilityProvider.availabilityOf(writer, 1))
                .isEqualTo(SnapshotAvailability.available());
    }

    @Test
    void anyFunctionThatImplementsItIsAskedOthersAreAvailable() {
        MapFunction<Long, Long> plain = value -> value;
        DecliningMap declining = new DecliningMap() {
            @Override
            public Long map(Long value) {
                return value;
            }

            @Override
            public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                return SnapshotAvailability.softFailure("checkpoint " + checkpointId + ": not now");
            }
        };
        assertThat(CheckpointAvailabilityProvider.availabilityOf(plain, 7)).isEqualTo(SnapshotAvailability.available());
        assertThat(CheckpointAvailabilityProvider.availabilityOf(declining, 7))
                .isEqualTo(SnapshotAvailability.softFailure("checkpoint 7: not now"));
        assertThatThrownBy(() -> CheckpointAvailabilityProvider.availabilityOf(
                (CheckpointAvailabilityProvider) id -> null, 7)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered null");
    }
}

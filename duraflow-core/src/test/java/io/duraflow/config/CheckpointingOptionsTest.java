package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointingOptionsTest {

    @Test
    void defaultsLeaveCheckpointingOff() {
        Configuration config = new Configuration();

        assertThat(CheckpointingOptions.isEnabled(config)).isFalse();
        CheckpointingOptions.validate(config);
        assertThat(config.get(CheckpointingOptions.TIMEOUT)).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.get(CheckpointingOptions.MIN_PAUSE)).isEqualTo(Duration.ZERO);
        assertThat(config.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS)).isEqualTo(1);
        assertThat(config.get(CheckpointingOptions.TOLERABLE_FAILED_CHECKPOINTS)).isZero();
        assertThat(config.get(CheckpointingOptions.NUM_RETAINED)).isEqualTo(1);
        assertThat(config.get(CheckpointingOptions.MAX_PARALLELISM)).isEqualTo(128);
    }

    @Test
    void anIntervalWithoutADirectoryIsAnErrorThatSaysWhatToSet() {
        Configuration config = Configuration.fromMap(Map.of("execution.checkpointing.interval", "1 s"));

        assertThat(CheckpointingOptions.isEnabled(config)).isTrue();
        assertThatThrownBy(() -> CheckpointingOptions.validate(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("set execution.checkpointing.dir");

        config.set(CheckpointingOptions.DIR, "/tmp/checkpoints");
        CheckpointingOptions.validate(config);
    }

    @Test
    void invalidValuesAreRejected() {
        assertThatThrownBy(() -> CheckpointingOptions.INTERVAL.parse("0 s"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS.parse("0"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> CheckpointingOptions.NUM_RETAINED.parse("0"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> CheckpointingOptions.TOLERABLE_FAILED_CHECKPOINTS.parse("-1"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> CheckpointingOptions.MAX_PARALLELISM.parse("32769"))
                .isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void optionsAreRegisteredGloballyWithDescriptions() {
        assertThat(ConfigRegistry.global().lookup("execution.checkpointing.num-retained"))
                .isSameAs(CheckpointingOptions.NUM_RETAINED);
        assertThat(ConfigRegistry.global().lookup("execution.checkpointing.savepoint-dir"))
                .isSameAs(CheckpointingOptions.SAVEPOINT_DIR);
        assertThat(ConfigRegistry.of(CheckpointingOptions.class).options())
                .hasSize(12)
                .allSatisfy(option -> assertThat(option.description()).endsWith("."));
    }
}

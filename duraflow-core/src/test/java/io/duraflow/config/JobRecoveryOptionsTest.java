package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import io.duraflow.config.JobRecoveryOptions.JobRecoveryMode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRecoveryOptionsTest {
    private static final ConfigRegistry REGISTRY =
            ConfigRegistry.of(JobRecoveryOptions.class, HighAvailabilityOptions.class);

    @Test
    void defaults() {
        Configuration config = new Configuration();

        assertThat(config.get(JobRecoveryOptions.ENABLED)).isEqualTo(JobRecoveryMode.AUTO);
        assertThat(config.get(JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.get(JobRecoveryOptions.WRITE_BUFFER_SIZE)).isEqualTo(MemorySize.ofMebiBytes(1));
        assertThat(config.get(JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL)).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.get(JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void everyOptionReadsFromText() {
        Configuration config = Configuration.fromMap(Map.of(
                "execution.batch.job-recovery.enabled", "off",
                "execution.batch.job-recovery.previous-worker.recovery.timeout", "0 s",
                "job-event.store.write-buffer.size", "64 kb",
                "job-event.store.write-buffer.flush-interval", "200 ms",
                "taskmanager.partition-retention.timeout", "10 min"), REGISTRY, "test");

        assertThat(config.get(JobRecoveryOptions.ENABLED)).isEqualTo(JobRecoveryMode.OFF);
        assertThat(config.get(JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT)).isEqualTo(Duration.ZERO);
        assertThat(config.get(JobRecoveryOptions.WRITE_BUFFER_SIZE)).isEqualTo(MemorySize.ofKibiBytes(64));
        assertThat(config.get(JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL)).isEqualTo(Duration.ofMillis(200));
        assertThat(config.get(JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT)).isEqualTo(Duration.ofMinutes(10));
        assertThat(JobRecoveryOptions.ENABLED.type().name()).isEqualTo("auto|on|off");
    }

    @Test
    void autoFollowsHighAvailability() {
        Configuration standalone = new Configuration();
        Configuration highlyAvailable = new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityType.ZOOKEEPER);

        assertThat(JobRecoveryOptions.isEnabled(standalone)).isFalse();
        assertThat(JobRecoveryOptions.isEnabled(highlyAvailable)).isTrue();
        assertThat(JobRecoveryOptions.isEnabled(standalone.copy().set(JobRecoveryOptions.ENABLED, JobRecoveryMode.ON)))
                .isTrue();
        assertThat(JobRecoveryOptions.isEnabled(
                highlyAvailable.copy().set(JobRecoveryOptions.ENABLED, JobRecoveryMode.OFF))).isFalse();
    }

    @Test
    void invalidValuesAreRejected() {
        assertThatThrownBy(() -> JobRecoveryOptions.ENABLED.parse("maybe"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'maybe' for execution.batch.job-recovery.enabled:"
                        + " expected one of 'auto', 'on', 'off'");
        assertThatThrownBy(() -> JobRecoveryOptions.WRITE_BUFFER_SIZE.parse("0"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("between 1 byte and 64 mb");
        assertThatThrownBy(() -> JobRecoveryOptions.WRITE_BUFFER_SIZE.parse("65 mb"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL.parse("0 ms"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT.parse("-1 s"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT.parse("-5 min"))
                .isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void keysDoNotClashWithTheCoreOptions() {
        ConfigRegistry registry = ConfigRegistry.of(ConfigRegistry.CORE_HOLDERS.toArray(new Class<?>[0]))
                .addHolder(JobRecoveryOptions.class);

        assertThat(registry.lookup("taskmanager.partition-retention.timeout"))
                .isSameAs(JobRecoveryOptions.PARTITION_RETENTION_TIMEOUT);
        assertThat(registry.options()).allSatisfy(option -> assertThat(option.description()).endsWith("."));
    }
}

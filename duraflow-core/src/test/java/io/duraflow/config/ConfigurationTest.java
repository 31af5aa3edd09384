package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigurationTest {
    @Test
    void unsetOptionsReadAsTheirDefaults() {
        Configuration conf = new Configuration();

        assertThat(conf.get(ClusterOptions.WORK_DIR)).isEqualTo(".duraflow");
        assertThat(conf.get(ClusterOptions.RPC_ASK_TIMEOUT)).isEqualTo(Duration.ofSeconds(10));
        assertThat(conf.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofSeconds(1));
        assertThat(conf.get(ClusterOptions.HEARTBEAT_TIMEOUT)).isEqualTo(Duration.ofSeconds(10));
        assertThat(conf.get(ClusterOptions.COLLECT_MAX_BYTES)).isEqualTo(MemorySize.ofMebiBytes(64));
        assertThat(conf.get(JobManagerOptions.RPC_ADDRESS)).isEqualTo("127.0.0.1");
        assertThat(conf.get(JobManagerOptions.RPC_PORT)).isEqualTo(6123);
        assertThat(conf.get(TaskManagerOptions.RPC_ADDRESS)).isEqualTo("127.0.0.1");
        assertThat(conf.get(TaskManagerOptions.RPC_PORT)).isZero();
        assertThat(conf.get(TaskManagerOptions.SLOTS)).isEqualTo(2);
        assertThat(conf.get(TaskManagerOptions.DATA_DIR)).isNull();
        assertThat(conf.get(TaskManagerOptions.AGGREGATION_BUDGET)).isEqualTo(MemorySize.ofMebiBytes(64));
        assertThat(conf.get(TaskManagerOptions.PARTITION_WRITE_BUFFER)).isEqualTo(MemorySize.ofMebiBytes(8));
        assertThat(conf.get(ExecutionOptions.PARALLELISM_DEFAULT)).isEqualTo(2);
        assertThat(conf.get(ExecutionOptions.BATCH_MAX_KEY_GROUPS)).isEqualTo(128);
        assertThat(conf.get(ExecutionOptions.ADAPTIVE_MIN_PARALLELISM)).isEqualTo(1);
        assertThat(conf.get(ExecutionOptions.ADAPTIVE_MAX_PARALLELISM)).isZero();
        assertThat(conf.get(ExecutionOptions.ADAPTIVE_AVG_BYTES_PER_TASK)).isEqualTo(MemorySize.ofMebiBytes(64));
        assertThat(conf.get(ExecutionOptions.RESTART_STRATEGY_TYPE)).isEqualTo(RestartStrategyType.FIXED_DELAY);
        assertThat(conf.get(ExecutionOptions.FIXED_DELAY_ATTEMPTS)).isEqualTo(10);
        assertThat(conf.get(ExecutionOptions.FIXED_DELAY_DELAY)).isEqualTo(Duration.ofSeconds(1));
        assertThat(conf.contains(ClusterOptions.HEARTBEAT_INTERVAL)).isFalse();
        assertThat(conf.toMap()).isEmpty();
    }

    @Test
    void setValuesWinOverDefaultsAndCanBeRemoved() {
        Configuration conf = new Configuration()
                .set(ClusterOptions.HEARTBEAT_INTERVAL, Duration.ofMillis(250))
                .set(TaskManagerOptions.SLOTS, 8);

        assertThat(conf.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofMillis(250));
        assertThat(conf.get(TaskManagerOptions.SLOTS)).isEqualTo(8);
        assertThat(conf.contains(TaskManagerOptions.SLOTS)).isTrue();

        conf.remove(TaskManagerOptions.SLOTS);
        assertThat(conf.contains(TaskManagerOptions.SLOTS)).isFalse();
        assertThat(conf.get(TaskManagerOptions.SLOTS)).isEqualTo(2);
    }

    @Test
    void settingAnInvalidValueFailsAndLeavesTheOldValue() {
        Configuration conf = new Configuration().set(TaskManagerOptions.SLOTS, 4);

        assertThatThrownBy(() -> conf.set(TaskManagerOptions.SLOTS, 0))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value '0' for taskmanager.slots: expected an integer >= 1");
        assertThat(conf.get(TaskManagerOptions.SLOTS)).isEqualTo(4);
        assertThatThrownBy(() -> conf.set(TaskManagerOptions.SLOTS, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void toMapGivesCanonicalTextOfExplicitlySetOptions() {
        Configuration conf = new Configuration()
                .set(ClusterOptions.HEARTBEAT_TIMEOUT, Duration.ofMinutes(5))
                .set(ClusterOptions.COLLECT_MAX_BYTES, MemorySize.ofKibiBytes(512))
                .set(ExecutionOptions.RESTART_STRATEGY_TYPE, RestartStrategyType.NONE)
                .set(TaskManagerOptions.DATA_DIR, "/var/duraflow");

        assertThat(conf.toMap()).containsExactly(
                Map.entry("collect.max-bytes", "512 kb"),
                Map.entry("heartbeat.timeout", "5 min"),
                Map.entry("restart-strategy.type", "none"),
                Map.entry("taskmanager.data-dir", "/var/duraflow"));
    }

    @Test
    void toMapAndFromMapRoundTrip() {
        Configuration conf = new Configuration()
                .set(ClusterOptions.HEARTBEAT_INTERVAL, Duration.ofMillis(1500))
                .set(ClusterOptions.WORK_DIR, "/tmp/work dir")
                .set(JobManagerOptions.RPC_PORT, 7000)
                .set(TaskManagerOptions.AGGREGATION_BUDGET, MemorySize.ofGibiBytes(2))
                .set(ExecutionOptions.RESTART_STRATEGY_TYPE, RestartStrategyType.NONE)
                .set(ExecutionOptions.FIXED_DELAY_DELAY, Duration.ZERO);

        Configuration copy = Configuration.fromMap(conf.toMap());

        assertThat(copy).isEqualTo(conf);
        assertThat(copy.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofMillis(1500));
        assertThat(copy.get(ClusterOptions.WORK_DIR)).isEqualTo("/tmp/work dir");
        assertThat(copy.get(JobManagerOptions.RPC_PORT)).isEqualTo(7000);
        assertThat(copy.get(TaskManagerOptions.AGGREGATION_BUDGET)).isEqualTo(MemorySize.ofGibiBytes(2));
        assertThat(copy.get(ExecutionOptions.RESTART_STRATEGY_TYPE)).isEqualTo(RestartStrategyType.NONE);
        assertThat(copy.get(ExecutionOptions.FIXED_DELAY_DELAY)).isEqualTo(Duration.ZERO);
    }

    @Test
    void fromMapNormalizesTheTextForm() {
        Configuration conf = Configuration.fromMap(Map.of("heartbeat.interval", "2000", "collect.max-bytes", "100M"));

        assertThat(conf.toMap()).containsEntry("heartbeat.interval", "2 s").containsEntry("collect.max-bytes", "100 mb");
    }

    @Test
    void fromMapRejectsUnknownKeysAndInvalidValues() {
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("heartbeat.intervall", "2 s")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("unknown configuration key 'heartbeat.intervall'; did you mean 'heartbeat.interval'?");
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("heartbeat.interval", "abc")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'abc' for heartbeat.interval: "
                        + "expected a duration such as '500 ms', '10 s' or '5 min'");
    }

    @Test
    void copyIsIndependent() {
        Configuration original = new Configuration().set(TaskManagerOptions.SLOTS, 3);
        Configuration copy = original.copy().set(TaskManagerOptions.SLOTS, 5);

        assertThat(original.get(TaskManagerOptions.SLOTS)).isEqualTo(3);
        assertThat(copy.get(TaskManagerOptions.SLOTS)).isEqualTo(5);
    }

    @Test
    void anotherOptionObjectWithTheSameKeyReadsTheSameSetting() {
        ConfigOption<String> slotsAsText = ConfigOption.key("taskmanager.slots").stringType().description("s");
        Configuration conf = new Configuration().set(TaskManagerOptions.SLOTS, 6);

        assertThat(conf.get(slotsAsText)).isEqualTo("6");
    }
}

package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConfigRegistryTest {
    /** A holder as a later module would write it. */
    public static final class PluginOptions {
        public static final ConfigOption<Integer> WORKERS = ConfigOption.key("plugin.workers")
                .intType().defaultValue(4).description("Number of plugin workers.");

        private PluginOptions() {
        }
    }

    /** Declares a key that core already uses. */
    public static final class ClashingOptions {
        public static final ConfigOption<String> INTERVAL = ConfigOption.key("heartbeat.interval")
                .stringType().defaultValue("x").description("Clashes with core.");

        private ClashingOptions() {
        }
    }

    @Test
    void globalRegistryKnowsEveryCoreOption() {
        ConfigRegistry registry = ConfigRegistry.global();

        assertThat(registry.options()).contains(
                ClusterOptions.WORK_DIR, ClusterOptions.RPC_ASK_TIMEOUT, ClusterOptions.HEARTBEAT_INTERVAL,
                ClusterOptions.HEARTBEAT_TIMEOUT, ClusterOptions.COLLECT_MAX_BYTES,
                JobManagerOptions.RPC_ADDRESS, JobManagerOptions.RPC_PORT,
                TaskManagerOptions.RPC_ADDRESS, TaskManagerOptions.RPC_PORT, TaskManagerOptions.SLOTS,
                TaskManagerOptions.DATA_DIR, TaskManagerOptions.AGGREGATION_BUDGET,
                TaskManagerOptions.PARTITION_WRITE_BUFFER,
                ExecutionOptions.PARALLELISM_DEFAULT, ExecutionOptions.BATCH_MAX_KEY_GROUPS,
                ExecutionOptions.ADAPTIVE_MIN_PARALLELISM, ExecutionOptions.ADAPTIVE_MAX_PARALLELISM,
                ExecutionOptions.ADAPTIVE_AVG_BYTES_PER_TASK, ExecutionOptions.RESTART_STRATEGY_TYPE,
                ExecutionOptions.FIXED_DELAY_ATTEMPTS, ExecutionOptions.FIXED_DELAY_DELAY);
        assertThat(registry.lookup("heartbeat.interval")).isSameAs(ClusterOptions.HEARTBEAT_INTERVAL);
        assertThat(registry.find("no.such.key")).isEmpty();
    }

    @Test
    void unknownKeySuggestsTheClosestKnownKey() {
        assertThatThrownBy(() -> ConfigRegistry.global().lookup("heartbeat.intervall", "conf/duraflow.yaml"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("unknown configuration key 'heartbeat.intervall' (from conf/duraflow.yaml); "
                        + "did you mean 'heartbeat.interval'?");
        assertThatThrownBy(() -> ConfigRegistry.global().lookup("taskmanger.slot", "-D"))
                .hasMessage("unknown configuration key 'taskmanger.slot' (from -D); did you mean 'taskmanager.slots'?");
    }

    @Test
    void unknownKeyMatchingTheEndOfOneKeySuggestsIt() {
        assertThatThrownBy(() -> ConfigRegistry.global().lookup("slots"))
                .hasMessage("unknown configuration key 'slots'; did you mean 'taskmanager.slots'?");
    }

    @Test
    void farAwayKeyGetsNoSuggestion() {
        assertThatThrownBy(() -> ConfigRegistry.global().lookup("foo.bar", "-D"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("unknown configuration key 'foo.bar' (from -D); run 'duraflow config' to list the options");
        assertThatThrownBy(() -> ConfigRegistry.global().lookup("x"))
                .hasMessageEndingWith("run 'duraflow config' to list the options");
    }

    @Test
    void isolatedRegistryHasOnlyItsHolders() {
        ConfigRegistry registry = ConfigRegistry.of(PluginOptions.class);

        assertThat(registry.options()).containsExactly(PluginOptions.WORKERS);
        assertThatThrownBy(() -> registry.lookup("heartbeat.interval")).isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void registeringIsIdempotentAndRejectsKeyClashes() {
        ConfigRegistry registry = ConfigRegistry.of(ClusterOptions.class, PluginOptions.class);
        registry.addHolder(PluginOptions.class);

        assertThat(registry.options()).hasSize(6);
        assertThatThrownBy(() -> registry.addHolder(ClashingOptions.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("heartbeat.interval");
        assertThat(registry.lookup("heartbeat.interval")).isSameAs(ClusterOptions.HEARTBEAT_INTERVAL);
        assertThatThrownBy(() -> registry.addHolder(String.class)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void staticRegisterAddsToTheGlobalRegistry() {
        ConfigRegistry.register(PluginOptions.class);

        assertThat(ConfigRegistry.global().lookup("plugin.workers")).isSameAs(PluginOptions.WORKERS);
        assertThat(Configuration.fromMap(java.util.Map.of("plugin.workers", "9")).get(PluginOptions.WORKERS)).isEqualTo(9);
    }

    @Test
    void tableListsKeyTypeDefaultAndDescription() {
        String table = ConfigRegistry.global().renderTable();
        String[] lines = table.split("\n");

        assertThat(lines[0]).startsWith("KEY").contains("TYPE", "DEFAULT", "DESCRIPTION");
        assertThat(table).containsPattern("(?m)^heartbeat\\.interval +duration +1 s +How often ");
        assertThat(table).containsPattern("(?m)^collect\\.max-bytes +memory +64 mb +Largest collected result");
        // A long enum type wraps after a '|' to keep lines within 150 characters.
        assertThat(table).containsPattern("(?m)^restart-strategy\\.type +fixed-delay\\| +fixed-delay +How a job"
                + " restarts.*\n +exponential-delay\\|none +\\S");
        assertThat(table).containsPattern("(?m)^taskmanager\\.data-dir +string +\\(none\\) ");
        for (ConfigOption<?> option : ConfigRegistry.global().options()) {
            assertThat(table).contains(option.key() + " ");
        }
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(150));
    }

    @Test
    void editDistance() {
        assertThat(EditDistance.between("kitten", "sitting", 10)).isEqualTo(3);
        assertThat(EditDistance.between("", "abc", 10)).isEqualTo(3);
        assertThat(EditDistance.between("same", "same", 0)).isZero();
        assertThat(EditDistance.between("abcdef", "uvwxyz", 2)).isGreaterThan(2);
    }
}

package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private Path write(String yaml) throws IOException {
        return Files.writeString(dir.resolve("duraflow.yaml"), yaml);
    }

    @Test
    void noFileAndNoOverridesGivesDefaults() {
        Configuration conf = ConfigLoader.load(null, Map.of());

        assertThat(conf.toMap()).isEmpty();
        assertThat(conf.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void nestedAndFlatYamlAreTheSame() throws IOException {
        Configuration flat = ConfigLoader.load(write("""
                heartbeat.interval: 2 s
                heartbeat.timeout: 20s
                taskmanager.memory.aggregation-budget: 128 mb
                restart-strategy.type: none
                """), Map.of());
        Configuration nested = ConfigLoader.load(write("""
                # comments are fine
                heartbeat:
                  interval: 2 s
                  timeout: 20s
                taskmanager:
                  memory:
                    aggregation-budget: 128 mb
                restart-strategy:
                  type: none
                """), Map.of());

        assertThat(nested).isEqualTo(flat);
        assertThat(nested.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofSeconds(2));
        assertThat(nested.get(ClusterOptions.HEARTBEAT_TIMEOUT)).isEqualTo(Duration.ofSeconds(20));
        assertThat(nested.get(TaskManagerOptions.AGGREGATION_BUDGET)).isEqualTo(MemorySize.ofMebiBytes(128));
        assertThat(nested.get(ExecutionOptions.RESTART_STRATEGY_TYPE)).isEqualTo(RestartStrategyType.NONE);
        assertThat(nested.contains(TaskManagerOptions.SLOTS)).isFalse();
    }

    @Test
    void scalarsOfAnyYamlTypeBecomeText() throws IOException {
        Configuration conf = ConfigLoader.load(write("""
                jobmanager.rpc.port: 7000
                heartbeat.interval: 1500
                jobmanager.rpc.address: "10.0.0.1"
                taskmanager.data-dir: '/data/duraflow'
                """), Map.of());

        assertThat(conf.get(JobManagerOptions.RPC_PORT)).isEqualTo(7000);
        assertThat(conf.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofMillis(1500));
        assertThat(conf.get(JobManagerOptions.RPC_ADDRESS)).isEqualTo("10.0.0.1");
        assertThat(conf.get(TaskManagerOptions.DATA_DIR)).isEqualTo("/data/duraflow");
    }

    @Test
    void overridesWinOverTheFile() throws IOException {
        Path file = write("""
                taskmanager:
                  slots: 4
                heartbeat.interval: 2 s
                """);

        Configuration conf = ConfigLoader.load(file, Map.of("taskmanager.slots", "16", "parallelism.default", "8"));

        assertThat(conf.get(TaskManagerOptions.SLOTS)).isEqualTo(16);
        assertThat(conf.get(ExecutionOptions.PARALLELISM_DEFAULT)).isEqualTo(8);
        assertThat(conf.get(ClusterOptions.HEARTBEAT_INTERVAL)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void unknownKeyInFileNamesTheFileAndSuggests() throws IOException {
        Path file = write("heartbeat:\n  intervall: 2 s\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("unknown configuration key 'heartbeat.intervall' (from " + file
                        + "); did you mean 'heartbeat.interval'?");
    }

    @Test
    void unknownOverrideKeySaysItCameFromDashD() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("taskmanager.slot", "3")))
                .hasMessage("unknown configuration key 'taskmanager.slot' (from -D); did you mean 'taskmanager.slots'?");
    }

    @Test
    void invalidValuesNameKeyValueSourceAndExpectation() throws IOException {
        Path file = write("heartbeat.interval: abc\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'abc' for heartbeat.interval (from " + file
                        + "): expected a duration such as '500 ms', '10 s' or '5 min'");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("taskmanager.slots", "0")))
                .hasMessage("invalid value '0' for taskmanager.slots (from -D): expected an integer >= 1");
    }

    @Test
    void anInvalidFileValueFailsEvenIfAnOverrideReplacesIt() throws IOException {
        Path file = write("taskmanager.slots: zero\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of("taskmanager.slots", "3")))
                .hasMessageContaining("'zero'");
    }

    @Test
    void missingFileIsAnError() {
        Path missing = dir.resolve("nope.yaml");

        assertThatThrownBy(() -> ConfigLoader.load(missing, Map.of()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("configuration file not found: " + missing);
    }

    @Test
    void yamlSyntaxErrorIsOneLineWithFileAndLine() throws IOException {
        Path file = write("heartbeat:\n  interval: 2 s\n bad indent: 3\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageStartingWith("invalid configuration file " + file + " at line 3: ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void keyGivenTwiceIsAnError() throws IOException {
        Path file = write("heartbeat.interval: 2 s\nheartbeat:\n  interval: 3 s\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid configuration file " + file + " at line 3: 'heartbeat.interval' is given more than once");
    }

    @Test
    void listsEmptyValuesAndNonMapDocumentsAreErrors() throws IOException {
        Path list = write("heartbeat.interval: [1 s, 2 s]\n");
        assertThatThrownBy(() -> ConfigLoader.load(list, Map.of()))
                .hasMessage("invalid configuration file " + list + " at line 1: "
                        + "'heartbeat.interval' is a list; configuration values are single values");

        Path empty = write("heartbeat:\n  interval:\n");
        assertThatThrownBy(() -> ConfigLoader.load(empty, Map.of()))
                .hasMessageContaining("'heartbeat.interval' has no value");

        Path notAMap = write("- heartbeat.interval\n");
        assertThatThrownBy(() -> ConfigLoader.load(notAMap, Map.of()))
                .hasMessageContaining("expected a map of keys to values");
    }

    @Test
    void emptyFileGivesDefaults() throws IOException {
        assertThat(ConfigLoader.load(write("# nothing set\n"), Map.of()).toMap()).isEmpty();
    }

    @Test
    void isolatedRegistryRejectsKeysItDoesNotKnow() throws IOException {
        Path file = write("taskmanager.slots: 3\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), ConfigRegistry.of(ClusterOptions.class)))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageStartingWith("unknown configuration key 'taskmanager.slots'");
    }

    @Test
    void syntaxProblemKeepsProblemAndContext() {
        String snakeYamlMessage = """
                while parsing a block mapping
                 in 'reader', line 1, column 1:
                    heartbeat:
                    ^
                expected <block end>, but found '<block mapping start>'
                 in 'reader', line 3, column 2:
                     bad indent: 3
                     ^
                """;

        assertThat(ConfigLoader.syntaxProblem(snakeYamlMessage))
                .isEqualTo("expected <block end>, but found '<block mapping start>' (while parsing a block mapping)");
        assertThat(ConfigLoader.syntaxProblem(null)).isEqualTo("syntax error");
    }
}

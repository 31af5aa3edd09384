package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigOptionTest {
    @Test
    void fluentBuilderKeepsKeyTypeDefaultAndDescription() {
        ConfigOption<Duration> option = ConfigOption.key("test.interval")
                .durationType()
                .defaultValue(Duration.ofSeconds(3))
                .description("An interval.");

        assertThat(option.key()).isEqualTo("test.interval");
        assertThat(option.type()).isSameAs(ConfigType.DURATION);
        assertThat(option.defaultValue()).isEqualTo(Duration.ofSeconds(3));
        assertThat(option.hasDefaultValue()).isTrue();
        assertThat(option.description()).isEqualTo("An interval.");
    }

    @Test
    void optionWithoutDefault() {
        assertThat(TaskManagerOptions.DATA_DIR.defaultValue()).isNull();
        assertThat(TaskManagerOptions.DATA_DIR.hasDefaultValue()).isFalse();
    }

    @Test
    void enumValuesAreLowerCaseWithDashes() {
        ConfigOption<RestartStrategyType> option = ExecutionOptions.RESTART_STRATEGY_TYPE;

        assertThat(option.format(RestartStrategyType.FIXED_DELAY)).isEqualTo("fixed-delay");
        assertThat(option.format(RestartStrategyType.NONE)).isEqualTo("none");
        assertThat(option.parse("fixed-delay")).isEqualTo(RestartStrategyType.FIXED_DELAY);
        assertThat(option.parse("FIXED_DELAY")).isEqualTo(RestartStrategyType.FIXED_DELAY);
        assertThat(option.parse("None")).isEqualTo(RestartStrategyType.NONE);
        assertThat(option.type().name()).isEqualTo("fixed-delay|exponential-delay|none");
    }

    @Test
    void unknownEnumValueListsTheChoices() {
        assertThatThrownBy(() -> ExecutionOptions.RESTART_STRATEGY_TYPE.parse("exponential"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'exponential' for restart-strategy.type: expected one of 'fixed-delay', 'exponential-delay', 'none'");
    }

    @Test
    void invalidValueMessageNamesKeyValueAndExpectation() {
        assertThatThrownBy(() -> ClusterOptions.HEARTBEAT_INTERVAL.parse("abc"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'abc' for heartbeat.interval: "
                        + "expected a duration such as '500 ms', '10 s' or '5 min'");
        assertThatThrownBy(() -> ClusterOptions.COLLECT_MAX_BYTES.parse("lots"))
                .hasMessage("invalid value 'lots' for collect.max-bytes: "
                        + "expected a memory size such as '512 kb', '64 mb' or '1 gb'");
        assertThatThrownBy(() -> TaskManagerOptions.SLOTS.parse("two"))
                .hasMessage("invalid value 'two' for taskmanager.slots: expected an integer such as '4'");
    }

    @Test
    void validatorsRejectOutOfRangeValues() {
        assertThatThrownBy(() -> TaskManagerOptions.SLOTS.parse("0"))
                .hasMessage("invalid value '0' for taskmanager.slots: expected an integer >= 1");
        assertThatThrownBy(() -> JobManagerOptions.RPC_PORT.parse("70000"))
                .hasMessage("invalid value '70000' for jobmanager.rpc.port: expected an integer between 0 and 65535");
        assertThatThrownBy(() -> ClusterOptions.HEARTBEAT_TIMEOUT.parse("0 s"))
                .hasMessageStartingWith("invalid value '0 s' for heartbeat.timeout: expected a duration greater than 0");
        assertThatThrownBy(() -> ExecutionOptions.FIXED_DELAY_ATTEMPTS.parse("-1"))
                .hasMessageContaining("expected an integer >= 0");
        assertThatThrownBy(() -> JobManagerOptions.RPC_ADDRESS.parse(" "))
                .hasMessageContaining("expected a non-empty string");

        assertThatThrownBy(() -> ClusterOptions.COLLECT_MAX_BYTES.parse("129 mb"))
                .hasMessage("invalid value '129 mb' for collect.max-bytes: expected a memory size between 1 byte and"
                        + " 128 mb (the most one RPC message carries and batch job recovery stores); write larger"
                        + " results to a file sink");
        assertThat(ClusterOptions.COLLECT_MAX_BYTES.parse("128 mb")).isEqualTo(ClusterOptions.COLLECT_MAX_BYTES_LIMIT);

        assertThat(TaskManagerOptions.RPC_PORT.parse("0")).isZero();
        assertThat(ExecutionOptions.FIXED_DELAY_ATTEMPTS.parse("0")).isZero();
        assertThat(ExecutionOptions.FIXED_DELAY_DELAY.parse("0")).isEqualTo(Duration.ZERO);
    }

    @Test
    void formatChecksTheValidatorToo() {
        assertThatThrownBy(() -> TaskManagerOptions.SLOTS.format(-3))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value '-3' for taskmanager.slots: expected an integer >= 1");
        assertThatThrownBy(() -> ClusterOptions.RPC_ASK_TIMEOUT.format(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("rpc.ask-timeout");
    }

    @Test
    void scalarTypes() {
        ConfigOption<Boolean> flag = ConfigOption.key("test.flag").booleanType().defaultValue(false).description("f");
        ConfigOption<Long> count = ConfigOption.key("test.count").longType().noDefaultValue().description("c");
        ConfigOption<Double> ratio = ConfigOption.key("test.ratio").doubleType().defaultValue(0.5).description("r");

        assertThat(flag.parse("TRUE")).isTrue();
        assertThatThrownBy(() -> flag.parse("yes")).hasMessage("invalid value 'yes' for test.flag: expected 'true' or 'false'");
        assertThat(count.parse("1_000_000")).isEqualTo(1_000_000L);
        assertThat(ratio.parse("0.75")).isEqualTo(0.75);
        assertThatThrownBy(() -> ratio.parse("NaN")).isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void invalidKeysAndDefaultsFailAtDeclaration() {
        assertThatThrownBy(() -> ConfigOption.key("Heartbeat.Interval"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid configuration key");
        assertThatThrownBy(() -> ConfigOption.key("a..b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConfigOption.key("test.slots").intType().defaultValue(0)
                .validator(ConfigValidator.intAtLeast(1)).description("d"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("test.slots");
    }
}

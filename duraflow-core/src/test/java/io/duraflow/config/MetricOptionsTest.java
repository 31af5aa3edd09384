package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetricOptionsTest {
    @Test
    void offByDefault() {
        assertThat(new Configuration().get(MetricOptions.PROMETHEUS_PORT)).isEqualTo("off");
        assertThat(MetricOptions.ports("off")).isEmpty();
        assertThat(new Configuration().get(MetricOptions.PROMETHEUS_ADDRESS)).isEqualTo("127.0.0.1");
    }

    @Test
    void aPortARangeOrAnyFreePort() {
        assertThat(MetricOptions.ports("9249")).containsExactly(9249);
        assertThat(MetricOptions.ports(" 9249-9251 ")).containsExactly(9249, 9250, 9251);
        assertThat(MetricOptions.ports("0")).containsExactly(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "on", "-1", "65536", "9251-9249", "0-10", "9249-", "9249,9250"})
    void anythingElseIsRejectedWithTheAllowedForms(String spec) {
        assertThatThrownBy(() -> MetricOptions.ports(spec)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("metrics.prometheus.port", spec))
                .get(MetricOptions.PROMETHEUS_PORT))
                .hasMessageContaining("metrics.prometheus.port")
                .hasMessageContaining("a range such as 9249-9260");
    }
}

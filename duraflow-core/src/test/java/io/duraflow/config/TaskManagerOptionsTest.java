package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskManagerOptionsTest {

    @Test
    void leaderLossTimeoutDefaultsToAMinute() {
        assertThat(new Configuration().get(TaskManagerOptions.LEADER_LOSS_TIMEOUT)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void leaderLossTimeoutReadsFromTextAndZeroTurnsAdoptionOff() {
        Configuration config = Configuration.fromMap(Map.of("taskmanager.leader-loss.timeout", "0 s"),
                ConfigRegistry.global(), "test");

        assertThat(config.get(TaskManagerOptions.LEADER_LOSS_TIMEOUT)).isEqualTo(Duration.ZERO);
        assertThat(Configuration.fromMap(Map.of("taskmanager.leader-loss.timeout", "2 min"), ConfigRegistry.global(),
                "test").get(TaskManagerOptions.LEADER_LOSS_TIMEOUT)).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void leaderLossTimeoutRejectsNegativeDurations() {
        assertThatThrownBy(() -> TaskManagerOptions.LEADER_LOSS_TIMEOUT.parse("-1 s"))
                .isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void leaderLossTimeoutIsRegisteredGlobally() {
        assertThat(ConfigRegistry.global().lookup("taskmanager.leader-loss.timeout"))
                .isSameAs(TaskManagerOptions.LEADER_LOSS_TIMEOUT);
        assertThat(TaskManagerOptions.LEADER_LOSS_TIMEOUT.description()).endsWith(".");
    }
}

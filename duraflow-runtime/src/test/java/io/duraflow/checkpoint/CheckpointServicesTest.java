package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.fs.FsPath;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointServicesTest {
    @Test
    void theJobsDirectoryIsUnderTheConfiguredDirectory() {
        Configuration config = Configuration.fromMap(Map.of("execution.checkpointing.interval", "1 s",
                "execution.checkpointing.dir", "/data/checkpoints"));

        assertThat(CheckpointServices.directories(config, "j1").jobDirectory())
                .isEqualTo(FsPath.parse("/data/checkpoints/j1"));
        assertThat(CheckpointCoordinatorConfig.fromConfiguration(config).intervalMs()).isEqualTo(1_000);
        assertThat(CheckpointServices.idCounter(null, "j1")).isInstanceOf(StandaloneCheckpointIdCounter.class);
    }

    @Test
    void aMissingOrUnknownDirectoryIsAClearConfigurationError() {
        Configuration withoutDir = Configuration.fromMap(Map.of("execution.checkpointing.interval", "1 s"));
        assertThatThrownBy(() -> CheckpointServices.directories(withoutDir, "j1"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("set execution.checkpointing.dir");

        Configuration unknownScheme = Configuration.fromMap(Map.of("execution.checkpointing.dir", "nosuchfs://x/c"));
        assertThatThrownBy(() -> CheckpointServices.directories(unknownScheme, "j1"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageStartingWith("execution.checkpointing.dir");
    }
}

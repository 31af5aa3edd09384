package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A local cluster's processes get the parallel collector unless their JVM options choose one. */
class ProcessLauncherCollectorTest {
    @Test
    void theParallelCollectorByDefault() {
        assertThat(ProcessLauncher.collector(List.of("-Xms1g", "-Xmx1g", "-XX:TieredStopAtLevel=1")))
                .containsExactly("-XX:+UseParallelGC");
    }

    @Test
    void aCollectorInTheOptionsIsTheOnlyOne() {
        assertThat(ProcessLauncher.collector(List.of("-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20"))).isEmpty();
        assertThat(ProcessLauncher.collector(List.of("-XX:+UseSerialGC"))).isEmpty();
    }
}

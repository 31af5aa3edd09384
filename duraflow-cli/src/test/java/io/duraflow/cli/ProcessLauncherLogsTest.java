package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A start on an existing work directory keeps the previous runs' logs (the evidence of a crash). */
class ProcessLauncherLogsTest {
    @TempDir
    Path dir;

    @Test
    void eachStartMovesTheLogsOneGenerationUpAndKeepsFive() throws Exception {
        Path log = dir.resolve("jobmanager-1.log");
        for (int run = 1; run <= 7; run++) {
            ProcessLauncher.rotateLog(log, ProcessLauncher.KEPT_LOGS);
            Files.writeString(log, "run " + run);
        }

        assertThat(Files.readString(log)).isEqualTo("run 7");
        for (int generation = 1; generation <= 5; generation++) {
            assertThat(Files.readString(dir.resolve("jobmanager-1.log." + generation)))
                    .isEqualTo("run " + (7 - generation));
        }
        assertThat(dir.resolve("jobmanager-1.log.6")).doesNotExist();
    }

    @Test
    void anEmptyOrMissingLogIsNotKept() throws Exception {
        Path log = dir.resolve("taskmanager-1.log");
        ProcessLauncher.rotateLog(log, 5);
        Files.writeString(log, "");
        ProcessLauncher.rotateLog(log, 5);

        assertThat(dir.resolve("taskmanager-1.log.1")).doesNotExist();
    }
}

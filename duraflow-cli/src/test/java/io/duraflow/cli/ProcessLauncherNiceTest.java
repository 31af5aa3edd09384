package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A local cluster's TaskManagers start at a lower CPU priority than its JobManagers, where {@code nice} exists. */
class ProcessLauncherNiceTest {
    @TempDir
    Path dir;
    private Path bin;

    @BeforeEach
    void fakeNice() throws Exception {
        bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("nice"), "#!/bin/sh\nexec \"$@\"\n");
        Files.setPosixFilePermissions(bin.resolve("nice"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void byDefaultATaskManagerRunsUnderNiceFiveFoundOnThePath() {
        String path = dir.resolve("empty") + File.pathSeparator + bin;

        assertThat(ProcessLauncher.taskManagerNice(null, path)).containsExactly(bin.resolve("nice").toString(), "-n", "5");
        assertThat(ProcessLauncher.taskManagerNice(" ", path)).containsExactly(bin.resolve("nice").toString(), "-n", "5");
    }

    @Test
    void theEnvironmentChoosesTheNicenessAndZeroTurnsItOff() {
        assertThat(ProcessLauncher.taskManagerNice("10", bin.toString()))
                .containsExactly(bin.resolve("nice").toString(), "-n", "10");
        assertThat(ProcessLauncher.taskManagerNice("0", bin.toString())).isEmpty();
    }

    @Test
    void withoutNiceOnThePathTaskManagersStartAsTheyAre() {
        assertThat(ProcessLauncher.taskManagerNice(null, dir.resolve("empty").toString())).isEmpty();
        assertThat(ProcessLauncher.taskManagerNice(null, "")).isEmpty();
    }

    @Test
    void aBadSettingIsAOneLineErrorThatSaysWhatToDo() {
        assertThatThrownBy(() -> ProcessLauncher.taskManagerNice("low", bin.toString()))
                .isInstanceOf(CliException.class)
                .hasMessage("DURAFLOW_TASKMANAGER_NICE must be a number from 0 to 19 (got 'low'); unset it for the"
                        + " default of 5, or set 0 to run TaskManagers at the JobManager's priority");
        assertThatThrownBy(() -> ProcessLauncher.taskManagerNice("20", bin.toString()))
                .isInstanceOf(CliException.class).hasMessage("DURAFLOW_TASKMANAGER_NICE must be from 0 to 19 (got 20);"
                        + " unset it for the default of 5, or set 0 to run TaskManagers at the JobManager's priority");
    }
}

package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch job recovery end to end: 'duraflow demo batch-failover' starts ZooKeeper, two JobManagers
 * and two TaskManagers as processes, runs a three-stage job undisturbed and then again with the
 * leader SIGKILLed after half of its source tasks finished. The demo checks the result against
 * the undisturbed run and an independent computation, and exits 0 only if no task that had
 * finished before the crash ran again.
 */
class BatchRecoveryIT {
    @TempDir
    Path tempDir;

    @Test
    void aJobManagerCrashCostsNoFinishedWork() throws Exception {
        Cli.Result result = Cli.run(tempDir, Duration.ofMinutes(3), "demo", "batch-failover", "--work-dir",
                tempDir.resolve("cluster").toString(), "--param", "records=60000000");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout()).contains("with the same result as without the crash");
        Matcher finished = Pattern.compile("tasks finished before the crash:\\s+(\\d+)").matcher(result.stdout());
        assertThat(finished.find()).as(result.stdout()).isTrue();
        assertThat(Integer.parseInt(finished.group(1))).as("the crash came after some tasks finished").isPositive();
        assertThat(result.stdout()).containsPattern("of those, run again after the crash:\\s+0 ");
    }
}

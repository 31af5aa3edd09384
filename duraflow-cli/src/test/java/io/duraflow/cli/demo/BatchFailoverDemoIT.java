package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.cli.Cli;
import io.duraflow.cli.LogsOnFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** 'duraflow demo batch-failover' end to end, as a user runs it. */
class BatchFailoverDemoIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    /**
     * 'duraflow demo batch-failover' (the README's job): the demo checks the result against the
     * undisturbed run and an independent computation, and exits 0 only if no task that had
     * finished before the crash ran again. 20 M records (the demo's default is 1.5 G): the kill
     * comes when 4 of the 8 source tasks finished, so the second wave of sources runs across it
     * whatever their length; each run takes a few seconds rather than half a minute.
     */
    @Test
    void theDemoLosesNoFinishedWork() throws Exception {
        Path work = LOGS.watch(tempDir.resolve("cluster"));
        Cli.Result result = Cli.run(LOGS.watch(tempDir), Duration.ofMinutes(3), "demo", "batch-failover",
                "--work-dir", work.toString(), "--param", "records=20000000");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout()).contains("with the same result as without the crash");
        Matcher finished = Pattern.compile("tasks finished before the crash:\\s+(\\d+)").matcher(result.stdout());
        assertThat(finished.find()).as(result.stdout()).isTrue();
        assertThat(Integer.parseInt(finished.group(1))).as("the crash came after some tasks finished").isPositive();
        assertThat(result.stdout()).containsPattern("of those, run again after the crash:\\s+0 ");
        assertThat(result.stdout()).as("the new leader's status says when it was elected and took the job over")
                .containsPattern("without a leader beyond detection:\\s+[\\d,]+ ms");
    }
}

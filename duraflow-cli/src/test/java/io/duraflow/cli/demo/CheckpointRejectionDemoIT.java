package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.cli.Cli;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.LogsOnFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 'duraflow demo checkpoint-rejection' (the README's demo) in a quick variant: soft declines while
 * table chunks are open, checkpoints completing between them, a TaskManager SIGKILL as the only
 * restart, the committed output exact, and every process stopped. The changelog phase lasts about 5
 * s: the crash waits for 3 completed checkpoints, and on a fast machine every checkpoint of the
 * table phase may find a chunk open (with 4,000 changes the job once ended before the crash).
 */
class CheckpointRejectionDemoIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void theDemoDeclinesSoftlyRestartsOnlyForTheCrashAndWritesExactOutput() throws Exception {
        Path work = LOGS.watch(tempDir.resolve("cluster"));
        Cli.Result result = Cli.run(LOGS.watch(tempDir), Duration.ofMinutes(4), "demo", "checkpoint-rejection",
                "--work-dir", work.toString(), "--param", "rows=24000", "--param", "changes=20000");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        String stdout = result.stdout();
        assertThat(stdout).contains("2. SIGKILL of taskmanager-", "3. Job FINISHED",
                "restarts: 1 (the SIGKILL explains 1); soft declines caused none");
        assertThat(stdout).containsPattern("exactly-once check of " + Pattern.quote(work.resolve("output").toString())
                + "/checkpoint-rejection-\\w+: PASS \\(44,000 records");
        assertThat(figure(stdout, "declined soft \\(a chunk was open\\):")).as(stdout).isPositive();
        assertThat(figure(stdout, "declined hard:")).as(stdout).isZero();
        long completed = figure(stdout, "completed:");
        assertThat(completed).as(stdout).isGreaterThan(2);
        assertThat(stdout).contains("(the JobManager's log: " + completed + ")");
        assertThat(stdout).containsPattern("from a chunk's end to the next completed checkpoint \\(\\d+ checkpoints"
                + " after soft declines\\): median [\\d,]+ ms, max [\\d,]+ ms");
        assertThat(new LocalCluster(work, Map.of(), line -> {}).alivePids()).as("processes left running").isEmpty();
    }

    private static long figure(String stdout, String label) {
        Matcher row = Pattern.compile(label + "\\s+(\\d+)").matcher(stdout);
        assertThat(row.find()).as("'%s' in:%n%s", label, stdout).isTrue();
        return Long.parseLong(row.group(1));
    }
}

package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.cli.Cli;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.LogsOnFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 'duraflow demo streaming-failover' (the README's streaming demo) in a quick variant: the job
 * survives the SIGKILL of a TaskManager and of the leader JobManager, the demo measures both
 * recoveries, finds the committed output exact and stops every process it started.
 */
class StreamingFailoverDemoIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void theDemoRecoversFromBothCrashesWithExactlyOnceOutput() throws Exception {
        Path work = LOGS.watch(tempDir.resolve("cluster"));
        Cli.Result result = Cli.run(LOGS.watch(tempDir), Duration.ofMinutes(4), "demo", "streaming-failover",
                "--work-dir", work.toString(), "--param", "records=1600000", "--param", "keys=10000");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        String stdout = result.stdout();
        assertThat(stdout).contains("2. SIGKILL of taskmanager-", "3. SIGKILL of the leader JobManager",
                "4. Job FINISHED");
        assertThat(stdout).containsPattern("exactly-once check of " + Pattern.quote(work.resolve("output").toString())
                + "/streaming-failover-\\w+: PASS");
        List<Long> before = figures(stdout, "checkpoints completed before the crash:");
        assertThat(before.get(0)).as(stdout).isPositive();
        assertThat(before.get(1)).as(stdout).isGreaterThan(before.get(0));
        assertThat(figures(stdout, "time until every task ran again:")).as(stdout).allMatch(ms -> ms > 0);
        List<Long> replayed = figures(stdout, "records replayed \\(read again after the restore\\):");
        assertThat(replayed.get(0)).as("replayed after the TaskManager crash: %s", stdout).isPositive()
                .isLessThan(1_600_000);
        // The TaskManagers keep the tasks through the leader's crash and the new leader adopts them.
        assertThat(stdout).containsPattern("the new leader adopted all \\d+ running tasks");
        assertThat(replayed.get(1)).as("replayed after the JobManager crash: %s", stdout).isZero();
        assertThat(figures(stdout, "pause in committed output \\(checkpoint to checkpoint\\):")).as(stdout)
                .allMatch(ms -> ms > 0);
        Matcher total = Pattern.compile(
                "checkpoints completed in total: (\\d+) \\((\\d+) in the JobManager logs, (\\d+) seen on disk\\)")
                .matcher(stdout);
        assertThat(total.find()).as(stdout).isTrue();
        long completed = Long.parseLong(total.group(1));
        assertThat(completed).as(stdout).isGreaterThan(before.get(1));
        // Each source may miss one checkpoint (a leader killed before its log line; the last one
        // deleted with the job before a poll), no more.
        assertThat(Long.parseLong(total.group(2))).as(stdout).isBetween(completed - 1, completed);
        assertThat(Long.parseLong(total.group(3))).as(stdout).isBetween(completed - 1, completed);
        assertThat(new LocalCluster(work, Map.of(), line -> {}).alivePids()).as("processes left running").isEmpty();
    }

    /** The two figures (TaskManager crash, JobManager crash) of a row of the demo's table, without separators. */
    private static List<Long> figures(String stdout, String rowLabel) {
        Matcher row = Pattern.compile(rowLabel + "\\s+~?([\\d,]+)[^\\d~]+~?([\\d,]+)").matcher(stdout);
        assertThat(row.find()).as("row '%s' in:%n%s", rowLabel, stdout).isTrue();
        return List.of(Long.parseLong(row.group(1).replace(",", "")), Long.parseLong(row.group(2).replace(",", "")));
    }
}

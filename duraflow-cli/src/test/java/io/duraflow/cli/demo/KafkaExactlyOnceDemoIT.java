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
 * 'duraflow demo kafka-exactly-once' in a quick variant: a Kafka broker and a high-availability
 * cluster as processes, the SIGKILL of a TaskManager (inside a checkpoint) and of the leader JobManager while records
 * are produced, and the output topic exact for a read_committed consumer; every process the demo
 * started, the broker's included, is gone when it ends. The command finds the broker's jars
 * itself, from where its classes were loaded (KafkaBrokerLib), as it does under bin/duraflow.
 */
class KafkaExactlyOnceDemoIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void theOutputTopicIsExactThroughBothCrashes() throws Exception {
        Path work = LOGS.watch(tempDir.resolve("cluster"));
        Cli.Result result = Cli.run(LOGS.watch(tempDir), Duration.ofMinutes(4), "demo", "kafka-exactly-once",
                "--work-dir", work.toString(), "--param", "records=140000", "--param", "keys=1000",
                "--param", "rate=8000");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        String stdout = result.stdout();
        assertThat(stdout).contains("2. SIGKILL of taskmanager-", "3. SIGKILL of the leader JobManager",
                "4. All 140,000 records produced", "output records (read_committed): 140,000 for 140,000 input records",
                "exactly-once check of topic 'output': PASS");
        assertThat(stdout).as("the TaskManager is killed inside a checkpoint")
                .containsPattern("2\\. SIGKILL of taskmanager-\\S+ \\(.*\\) while checkpoint \\d+ was in progress");
        List<Long> before = figures(stdout, "checkpoints completed before the crash:");
        assertThat(before.get(0)).as(stdout).isPositive();
        assertThat(before.get(1)).as(stdout).isGreaterThan(before.get(0));
        assertThat(figures(stdout, "time until every task ran again:")).as(stdout).allMatch(ms -> ms > 0);
        assertThat(figures(stdout, "longest pause in committed output:")).as(stdout).allMatch(ms -> ms > 0);
        Matcher aborted = Pattern.compile("records written in aborted transactions \\(read_uncommitted minus"
                + " read_committed\\): ([\\d,]+)").matcher(stdout);
        assertThat(aborted.find()).as(stdout).isTrue();

        assertThat(new LocalCluster(work, Map.of(), line -> {}).alivePids()).as("processes left running").isEmpty();
        String brokerDir = work.resolve("kafka").toString();
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(brokerDir)))
                .as("the Kafka broker left running").isEmpty();
    }

    /** The two figures (TaskManager crash, JobManager crash) of a row of the demo's table, without separators. */
    private static List<Long> figures(String stdout, String rowLabel) {
        Matcher row = Pattern.compile(rowLabel + "\\s+([\\d,]+)[^\\d]+([\\d,]+)").matcher(stdout);
        assertThat(row.find()).as("row '%s' in:%n%s", rowLabel, stdout).isTrue();
        return List.of(Long.parseLong(row.group(1).replace(",", "")), Long.parseLong(row.group(2).replace(",", "")));
    }
}

package io.duraflow.cli.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** The Kafka demo's results: what each crash cost, the checkpoints, the output and its exactly-once check. */
final class KafkaDemoReport {
    /** After the first checkpoint after a crash completed: by then its transactions are committed and read. */
    private static final long COMMIT_MARGIN_MS = 2_000;

    private final PrintStream out;
    private final Path logDirectory;
    private final String jobId;

    KafkaDemoReport(PrintStream out, Path logDirectory, String jobId) {
        this.out = out;
        this.logDirectory = logDirectory;
        this.jobId = jobId;
    }

    /**
     * @param committed output records a {@code read_committed} consumer read at the end
     * @param written   output records a {@code read_uncommitted} consumer read: aborted transactions' too
     */
    void print(List<KafkaCrashes.Crash> crashes, CheckpointWatch checkpoints, CommittedOutputWatch output, long records,
            long keys, long committed, long written, List<String> problems) throws IOException {
        TreeSet<Long> restored = CheckpointWatch.restoredInLogs(logDirectory, jobId);
        out.println();
        out.println("   Times are from the SIGKILL; task states from status polls every " + DemoRun.POLL_MS + " ms;"
                + " checkpoints from their _metadata");
        out.println("   (completion times, the source's offsets); committed output from a read_committed consumer.");
        out.printf("   %-52s", "");
        crashes.forEach(crash -> out.printf(" %20s", crash.what()));
        out.println();
        String[] labels = {"checkpoints completed before the crash",
            "time to a new leader",
            "time until every task ran again",
            "time to the first checkpoint after the crash",
            "restored from checkpoint, source at (records)",
            "longest pause in committed output"};
        String[][] cells = new String[labels.length][crashes.size()];
        for (int i = 0; i < crashes.size(); i++) {
            KafkaCrashes.Crash crash = crashes.get(i);
            Optional<CheckpointWatch.Seen> after = checkpoints.firstTriggeredAfter(crash.killedAtMs());
            cells[0][i] = Integer.toString(checkpoints.completedBy(crash.killedAtMs()).size());
            cells[1][i] = crash.newLeaderMs() < 0 ? "-" : String.format("%,d ms", crash.newLeaderMs());
            cells[2][i] = String.format("%,d ms%s", crash.runningAgainAtMs() - crash.killedAtMs(),
                    crash.adopted() ? " (adopted)" : "");
            cells[3][i] = after.map(c -> String.format("%,d ms (chk %d)", c.completedMs() - crash.killedAtMs(), c.id()))
                    .orElse("none");
            if (crash.adopted()) {
                cells[4][i] = "none: tasks adopted";
            } else {
                long restoredId = after.isEmpty() ? crash.lastBefore().id() : restored.headSet(after.get().id())
                        .stream().reduce((a, b) -> b).orElse(crash.lastBefore().id());
                CheckpointWatch.Seen from = checkpoints.seen().getOrDefault(restoredId, crash.lastBefore());
                cells[4][i] = String.format("chk %d: %,d", from.id(), from.sourceRecordsRead());
            }
            long resumedBy = after.map(c -> c.completedMs()).orElse(crash.runningAgainAtMs()) + COMMIT_MARGIN_MS;
            cells[5][i] = String.format("%,d ms", CommittedOutputWatch.longestPause(output.arrivalsMs(),
                    crash.killedAtMs(), resumedBy));
        }
        for (int row = 0; row < labels.length; row++) {
            StringBuilder line = new StringBuilder(String.format("   %-52s", labels[row] + ":"));
            for (String cell : cells[row]) {
                line.append(String.format(" %20s", cell));
            }
            out.println(line);
        }
        TreeSet<Long> completed = new TreeSet<>(CheckpointWatch.completedInLogs(logDirectory, jobId));
        int logged = completed.size();
        completed.addAll(checkpoints.seen().keySet());
        out.printf("   checkpoints completed in total: %d (%d in the JobManager logs, %d seen on disk)%n",
                completed.size(), logged, checkpoints.seen().size());
        out.println("   Pause in committed output: the longest time a read_committed consumer saw no new output around"
                + " the crash");
        out.println("   (normally about a checkpoint interval: the sink commits its transactions when a checkpoint"
                + " completes).");
        out.println();
        out.printf("   output records (read_committed): %,d for %,d input records%n", committed, records);
        out.printf("   records written in aborted transactions (read_uncommitted minus read_committed): %,d%n",
                written - committed);
        if (problems.isEmpty()) {
            out.printf("   exactly-once check of topic 'output': PASS (%,d keys, for a key read n times key:1 .. key:n,"
                    + " each once, and nothing else)%n", keys);
        } else {
            out.println("   exactly-once check of topic 'output': FAIL");
            problems.forEach(problem -> out.println("     " + problem));
        }
    }
}

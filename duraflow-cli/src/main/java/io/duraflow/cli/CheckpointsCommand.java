package io.duraflow.cli;

import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Prints a running streaming job's checkpoints as its JobMaster knows them, newest last. Columns:
 * full size (every byte the checkpoint refers to: what a restore reads), incremental size (the
 * bytes it wrote; less than the full size when it reuses shared files of earlier incremental
 * checkpoints), the state files it uploaded and the shared files it reused, and for a failed
 * checkpoint its reason, for a savepoint its directory.
 */
@Command(name = "checkpoints", description = "Shows a running streaming job's checkpoints: status, trigger time,"
        + " duration, full and incremental size, files uploaded and reused, failure reason or savepoint path.")
final class CheckpointsCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);
    private static final String ROW = "%-6s %-10s %-11s %-19s %9s %9s %9s %8s %6s  %s";

    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            format(client.checkpoints(jobId)).forEach(System.out::println);
            return 0;
        });
    }

    /** The header lines, then the table (oldest first, in progress last). */
    static List<String> format(JobCheckpoints report) {
        List<String> lines = new ArrayList<>();
        lines.add("Job " + report.getJobId() + ": checkpoint interval " + (report.getIntervalMs() == 0 ? "none (only"
                + " when asked)" : duration(report.getIntervalMs())) + ", " + report.getCompleted() + " completed, "
                + report.getFailed() + " failed");
        lines.add("  latest completed: " + (report.getLatestCompletedId() == 0 ? "none"
                : report.getLatestCompletedId() + " at " + report.getLatestCompletedPath()));
        lines.add("  restored from:    " + (report.getRestoredFromId() == 0 ? "nothing (started from empty state)"
                : report.getRestoredFromId() + " at " + report.getRestoredFromPath()));
        if (report.getCheckpointsCount() == 0) {
            lines.add("No checkpoints yet");
            return lines;
        }
        lines.add(String.format(ROW, "ID", "KIND", "STATUS", "TRIGGERED (UTC)", "DURATION", "FULL SIZE",
                "INCR SIZE", "UPLOADED", "REUSED", "REASON / PATH").stripTrailing());
        for (CheckpointSummary c : report.getCheckpointsList()) {
            lines.add(row(c));
        }
        return lines;
    }

    static String row(CheckpointSummary c) {
        // A JobManager from before these figures sends none of them: show "-", not a misleading 0.
        boolean hasFigures = c.getCheckpointedSizeBytes() > 0 || c.getFilesUploaded() > 0 || c.getFilesReused() > 0
                || c.getFiles() == 0;
        return String.format(ROW, c.getCheckpointId(), c.getKind(), statusName(c.getStatus()),
                TIME.format(Instant.ofEpochMilli(c.getTriggerMs())), duration(c.getDurationMs()),
                bytes(c.getStateSizeBytes()), hasFigures ? bytes(c.getCheckpointedSizeBytes()) : "-",
                hasFigures ? Integer.toString(c.getFilesUploaded()) : "-",
                hasFigures ? Integer.toString(c.getFilesReused()) : "-", last(c)).stripTrailing();
    }

    /** A failure's reason, else a savepoint's directory. */
    private static String last(CheckpointSummary c) {
        if (!c.getFailureReason().isEmpty()) {
            return reason(c);
        }
        return c.getKind().equals("SAVEPOINT") ? c.getPath() : "";
    }

    /** For a failed checkpoint: its reason kind first (SNAPSHOT_UNAVAILABLE_SOFT, EXPIRED, ...), the task, the message. */
    static String reason(CheckpointSummary c) {
        if (c.getFailureReason().isEmpty()) {
            return "";
        }
        return c.getFailureReason() + (c.getFailureTask().isEmpty() ? "" : " (" + c.getFailureTask() + ")") + ": "
                + c.getFailureMessage();
    }

    private static String statusName(String status) {
        return status.equals("IN_PROGRESS") ? "in progress" : status.toLowerCase(Locale.ROOT);
    }

    /** 850 ms, 1.2 s, 3m 05s */
    static String duration(long ms) {
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long seconds = ms / 1000;
        return String.format(Locale.ROOT, "%dm %02ds", seconds / 60, seconds % 60);
    }

    /** 512 B, 1.5 KiB, 20.0 MiB */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}

package io.duraflow.cli;

import io.duraflow.rpc.proto.CheckpointDecline;
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
        + " duration, full and incremental size, files uploaded and reused, failure reason or savepoint path."
        + " 'checkpoints verify DIR' checks a checkpoint directory on disk.",
        subcommands = CheckpointsCommand.Verify.class)
final class CheckpointsCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);
    private static final String ROW = "%-6s %-10s %-11s %-19s %9s %9s %9s %8s %6s  %s";

    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", arity = "0..1", paramLabel = "JOB_ID")
    String jobId;

    @Override
    public Integer call() throws Exception {
        if (jobId == null) {
            throw new CliException("give the id of a running streaming job (duraflow list shows them), or 'verify DIR'"
                    + " to check a checkpoint directory");
        }
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

    /**
     * For a failed checkpoint: its reason kind first (SNAPSHOT_UNAVAILABLE_SOFT, EXPIRED, ...), the
     * task, the message; then the other tasks' declines, if more than one declined it.
     */
    static String reason(CheckpointSummary c) {
        if (c.getFailureReason().isEmpty()) {
            return "";
        }
        StringBuilder reason = new StringBuilder(c.getFailureReason() + (c.getFailureTask().isEmpty() ? ""
                : " (" + c.getFailureTask() + ")") + ": " + c.getFailureMessage());
        for (CheckpointDecline decline : c.getDeclinesList()) {
            if (!decline.getTask().equals(c.getFailureTask()) || !decline.getReason().equals(c.getFailureReason())) {
                reason.append("; also ").append(decline.getReason()).append(" (").append(decline.getTask())
                        .append("): ").append(decline.getMessage());
            }
        }
        return reason.toString();
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

    /**
     * {@code duraflow checkpoints verify DIR}: {@link io.duraflow.checkpoint.CheckpointVerifier} on a
     * job's checkpoint directory, or on every job directory in {@code execution.checkpointing.dir}.
     */
    @Command(name = "verify", description = "Checks a job's checkpoint directory like fsck: every file the retained"
            + " checkpoints refer to exists, is long enough and (merged files) has the right checksum per segment,"
            + " and no other file is there; exit code 1 on a missing, short or corrupt file or an orphan. Check a job"
            + " that is not running for an exact answer.")
    static final class Verify implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "a job's checkpoint directory"
                + " (<execution.checkpointing.dir>/<job id>), or execution.checkpointing.dir itself for every job in it")
        String directory;

        @Override
        public Integer call() throws Exception {
            io.duraflow.fs.FsPath path = io.duraflow.fs.FsPath.parse(directory);
            io.duraflow.fs.FileSystem fileSystem = io.duraflow.fs.FileSystems.get(path);
            if (!fileSystem.exists(path) || !fileSystem.status(path).isDirectory()) {
                throw new CliException(directory + " is not a directory: give a job's checkpoint directory,"
                        + " <execution.checkpointing.dir>/<job id>");
            }
            List<io.duraflow.fs.FsPath> jobs = jobDirectories(fileSystem, path);
            if (jobs.isEmpty()) {
                throw new CliException(directory + " holds no job's checkpoints (no chk-<n>, shared/ or taskowned/ in"
                        + " it or in a directory below it)");
            }
            boolean clean = true;
            for (io.duraflow.fs.FsPath job : jobs) {
                io.duraflow.checkpoint.CheckpointVerifier.Report report =
                        io.duraflow.checkpoint.CheckpointVerifier.verify(fileSystem, job);
                java.io.PrintWriter out = spec.commandLine().getOut();
                format(report).forEach(out::println);
                out.flush();
                clean &= report.isClean();
            }
            return clean ? 0 : 1;
        }

        /** {@code path} itself if it is a job's checkpoint directory, else the job directories in it. */
        static List<io.duraflow.fs.FsPath> jobDirectories(io.duraflow.fs.FileSystem fileSystem,
                io.duraflow.fs.FsPath path) throws java.io.IOException {
            if (isJobDirectory(fileSystem, path)) {
                return List.of(path);
            }
            List<io.duraflow.fs.FsPath> jobs = new ArrayList<>();
            for (io.duraflow.fs.FileStatus status : fileSystem.list(path)) {
                if (status.isDirectory() && isJobDirectory(fileSystem, status.path())) {
                    jobs.add(status.path());
                }
            }
            return jobs;
        }

        private static boolean isJobDirectory(io.duraflow.fs.FileSystem fileSystem, io.duraflow.fs.FsPath path)
                throws java.io.IOException {
            for (io.duraflow.fs.FileStatus status : fileSystem.list(path)) {
                String name = status.path().name();
                if (status.isDirectory() && (name.matches("chk-[0-9]+") || name.equals("shared")
                        || name.equals("taskowned"))) {
                    return true;
                }
            }
            return false;
        }

        static List<String> format(io.duraflow.checkpoint.CheckpointVerifier.Report report) {
            List<String> lines = new ArrayList<>();
            lines.add("Checking " + report.jobDirectory() + ": " + report.checkpointIds().size() + " retained checkpoint"
                    + (report.checkpointIds().size() == 1 ? "" : "s") + (report.checkpointIds().isEmpty() ? ""
                    : " (" + String.join(", ", report.checkpointIds().stream().map(String::valueOf).toList()) + ")"));
            lines.add("  files:  " + report.referencedFiles() + " referenced (" + report.mergedFiles() + " merged, "
                    + report.segments() + " segments checked), " + report.filesOnDisk() + " on disk");
            lines.add("  bytes:  " + bytes(report.referencedBytes()) + " referenced, " + bytes(report.bytesOnDisk())
                    + " on disk" + (report.referencedBytes() == 0 ? "" : String.format(Locale.ROOT, " (%.2fx)",
                    (double) report.bytesOnDisk() / report.referencedBytes())));
            int missing = report.scan().missing().size();
            int orphans = report.scan().orphans().size();
            int corrupt = report.corrupt().size();
            lines.add("  " + missing + " missing, " + corrupt + " corrupt, " + orphans + " orphan" + (orphans == 1 ? "" : "s"));
            report.problems().forEach(problem -> lines.add("  " + problem));
            lines.add(report.isClean() ? "OK" : "FAILED: " + missing + " missing, " + corrupt + " corrupt, " + orphans
                    + " orphan" + (orphans == 1 ? "" : "s"));
            return lines;
        }
    }
}

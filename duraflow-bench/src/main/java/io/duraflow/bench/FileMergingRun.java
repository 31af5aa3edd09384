package io.duraflow.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The figures of one run of {@link FileMergingBenchmark}, the same for both engines; Flink's JVM
 * hands them back as properties ({@link #put}, {@link #from}).
 *
 * @param engine {@code duraflow} or {@code flink 2.3.0}
 * @param mode off, within or across
 * @param fileSystem where the checkpoints went: {@code local} or {@code hdfs}
 * @param recordsPerSecond records / job time (Duraflow: submission to end, JobMaster; Flink: net runtime)
 * @param checkpointMedianMillis trigger to completion, from the engine's checkpoint statistics
 * @param files files per checkpoint ({@link CheckpointFileCensus#summary()})
 * @param space bytes on disk against live bytes ({@link CheckpointFileCensus#spaceSummary()}); NaN where not measured
 * @param composition the median checkpoint's files by directory ({@link CheckpointFileCensus#describeMedianCheckpoint()})
 * @param nameNode per checkpoint on the NameNode (HDFS only): mean and max of {@code CreateFileOps}
 *     (files created) and {@code FilesCreated} (files and directories); empty elsewhere
 */
public record FileMergingRun(String engine, String mode, String fileSystem, int round, long records, long jobMillis,
        double recordsPerSecond, double cpuNanosPerRecord, int checkpointsCompleted, int checkpointsFailed,
        long checkpointMedianMillis, long checkpointMaxMillis, CheckpointFileCensus.Summary files,
        CheckpointSpace.SpaceSummary space, String composition, Map<String, Double> nameNode, boolean exact,
        String problems) {

    /** The file-merging settings of a mode: the option names are the same in Duraflow and Flink 2.3. */
    public static Map<String, String> mergingConfig(String mode) {
        Map<String, String> config = new LinkedHashMap<>();
        switch (mode) {
            case "off" -> config.put("execution.checkpointing.file-merging.enabled", "false");
            case "within" -> {
                config.put("execution.checkpointing.file-merging.enabled", "true");
                config.put("execution.checkpointing.file-merging.across-checkpoint-boundary", "false");
            }
            case "across" -> {
                config.put("execution.checkpointing.file-merging.enabled", "true");
                config.put("execution.checkpointing.file-merging.across-checkpoint-boundary", "true");
            }
            default -> throw new IllegalArgumentException("unknown file-merging mode '" + mode + "': off, within or across");
        }
        return config;
    }

    /** Readable lines for the benchmark's output. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        String prefix = String.format(Locale.ROOT, "%s %s merging %s (round %d, %s):", engine, fileSystem, mode, round,
                exact ? "exact" : "NOT EXACT " + problems);
        lines.add(String.format(Locale.ROOT, "%s %,d records in %,d ms = %,.0f records/s%s; checkpoints %d completed,"
                        + " %d failed, duration median %,d ms, max %,d ms", prefix, records, jobMillis, recordsPerSecond,
                Double.isNaN(cpuNanosPerRecord) ? "" : String.format(Locale.ROOT, " (%,.0f ns CPU per record)",
                        cpuNanosPerRecord), checkpointsCompleted, checkpointsFailed, checkpointMedianMillis,
                checkpointMaxMillis));
        lines.add(String.format(Locale.ROOT, "%s files per checkpoint (scan, %d checkpoints while every task ran):"
                        + " mean %.1f, median %d (chk-<n>/ %d, shared/ %d, taskowned/ %d), max %d; with the %d final"
                        + " checkpoint(s) taken while tasks finished: mean %.1f; median %s", prefix, files.checkpoints(),
                files.meanFiles(), files.medianFiles(), files.medianCheckpointDirFiles(), files.medianSharedFiles(),
                files.medianTaskOwnedFiles(), files.maxFiles(), files.finalCheckpoints(), files.meanFilesAll(),
                composition));
        if (space.checkpoints() > 0) {
            lines.add(String.format(Locale.ROOT, "%s bytes on disk / live bytes at each completed checkpoint (%d):"
                            + " median %.2f, max %.2f; highest between completions %.2f (%.2f with the next checkpoint's"
                            + " uploads in flight); on disk median %,.2f MB, max %,.2f MB; live median %,.2f MB%s",
                    prefix, space.checkpoints(), space.medianAmplification(), space.maxAmplification(),
                    space.maxHighestAmplification(), space.maxHighestAmplificationAll(), space.medianDiskBytes() / 1e6,
                    space.maxDiskBytes() / 1e6, space.medianLiveBytes() / 1e6,
                    (space.unreadableMetadata() == 0 ? "" : ", " + space.unreadableMetadata() + " _metadata unreadable")
                            + (space.checkpointsMissingFiles() == 0 ? ""
                            : ", MISSING referenced files at " + space.checkpointsMissingFiles() + " checkpoint(s)")));
        }
        if (!nameNode.isEmpty()) {
            lines.add(String.format(Locale.ROOT, "%s NameNode per checkpoint: files created (CreateFileOps) mean %.1f,"
                            + " max %.0f; files and directories created (FilesCreated) mean %.1f, max %.0f", prefix,
                    nameNode.getOrDefault("CreateFileOps.mean", Double.NaN),
                    nameNode.getOrDefault("CreateFileOps.max", Double.NaN),
                    nameNode.getOrDefault("FilesCreated.mean", Double.NaN),
                    nameNode.getOrDefault("FilesCreated.max", Double.NaN)));
        }
        return lines;
    }

    /** Writes the figures under {@code prefix}. */
    public void put(String prefix, Map<String, String> into) {
        into.put(prefix + "engine", engine);
        into.put(prefix + "mode", mode);
        into.put(prefix + "fs", fileSystem);
        into.put(prefix + "round", Integer.toString(round));
        into.put(prefix + "records", Long.toString(records));
        into.put(prefix + "job.millis", Long.toString(jobMillis));
        into.put(prefix + "records.per.second", Double.toString(recordsPerSecond));
        into.put(prefix + "cpu.nanos.per.record", Double.toString(cpuNanosPerRecord));
        into.put(prefix + "checkpoints.completed", Integer.toString(checkpointsCompleted));
        into.put(prefix + "checkpoints.failed", Integer.toString(checkpointsFailed));
        into.put(prefix + "checkpoint.median.millis", Long.toString(checkpointMedianMillis));
        into.put(prefix + "checkpoint.max.millis", Long.toString(checkpointMaxMillis));
        into.put(prefix + "files.checkpoints", Integer.toString(files.checkpoints()));
        into.put(prefix + "files.median", Integer.toString(files.medianFiles()));
        into.put(prefix + "files.max", Integer.toString(files.maxFiles()));
        into.put(prefix + "files.median.bytes", Long.toString(files.medianBytes()));
        into.put(prefix + "files.max.bytes", Long.toString(files.maxBytes()));
        into.put(prefix + "files.median.shared", Integer.toString(files.medianSharedFiles()));
        into.put(prefix + "files.total", Integer.toString(files.totalFiles()));
        into.put(prefix + "files.median.taskowned", Integer.toString(files.medianTaskOwnedFiles()));
        into.put(prefix + "files.median.chk", Integer.toString(files.medianCheckpointDirFiles()));
        into.put(prefix + "files.mean", Double.toString(files.meanFiles()));
        into.put(prefix + "files.final.checkpoints", Integer.toString(files.finalCheckpoints()));
        into.put(prefix + "files.mean.all", Double.toString(files.meanFilesAll()));
        into.put(prefix + "space.checkpoints", Integer.toString(space.checkpoints()));
        into.put(prefix + "space.median", Double.toString(space.medianAmplification()));
        into.put(prefix + "space.max", Double.toString(space.maxAmplification()));
        into.put(prefix + "space.max.highest", Double.toString(space.maxHighestAmplification()));
        into.put(prefix + "space.max.highest.all", Double.toString(space.maxHighestAmplificationAll()));
        into.put(prefix + "space.median.disk", Long.toString(space.medianDiskBytes()));
        into.put(prefix + "space.max.disk", Long.toString(space.maxDiskBytes()));
        into.put(prefix + "space.median.live", Long.toString(space.medianLiveBytes()));
        into.put(prefix + "space.unreadable", Integer.toString(space.unreadableMetadata()));
        into.put(prefix + "space.missing", Integer.toString(space.checkpointsMissingFiles()));
        into.put(prefix + "composition", composition);
        nameNode.forEach((name, value) -> into.put(prefix + "namenode." + name, Double.toString(value)));
        into.put(prefix + "exact", Boolean.toString(exact));
        into.put(prefix + "problems", problems);
    }

    /** Reads what {@link #put} wrote under {@code prefix}. */
    public static FileMergingRun from(Properties p, String prefix) {
        Map<String, Double> nameNode = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(prefix + "namenode.")) {
                nameNode.put(key.substring((prefix + "namenode.").length()), Double.parseDouble(p.getProperty(key)));
            }
        }
        return new FileMergingRun(p.getProperty(prefix + "engine"), p.getProperty(prefix + "mode"),
                p.getProperty(prefix + "fs"), i(p, prefix + "round"), l(p, prefix + "records"),
                l(p, prefix + "job.millis"), d(p, prefix + "records.per.second"), d(p, prefix + "cpu.nanos.per.record"),
                i(p, prefix + "checkpoints.completed"), i(p, prefix + "checkpoints.failed"),
                l(p, prefix + "checkpoint.median.millis"), l(p, prefix + "checkpoint.max.millis"),
                new CheckpointFileCensus.Summary(i(p, prefix + "files.checkpoints"), i(p, prefix + "files.median"),
                        i(p, prefix + "files.max"), l(p, prefix + "files.median.bytes"), l(p, prefix + "files.max.bytes"),
                        i(p, prefix + "files.median.shared"), i(p, prefix + "files.total"),
                        i(p, prefix + "files.median.taskowned"), i(p, prefix + "files.median.chk"),
                        d(p, prefix + "files.mean"), i(p, prefix + "files.final.checkpoints"),
                        d(p, prefix + "files.mean.all")),
                new CheckpointSpace.SpaceSummary(i(p, prefix + "space.checkpoints"), d(p, prefix + "space.median"),
                        d(p, prefix + "space.max"), d(p, prefix + "space.max.highest"),
                        d(p, prefix + "space.max.highest.all"),
                        l(p, prefix + "space.median.disk"), l(p, prefix + "space.max.disk"),
                        l(p, prefix + "space.median.live"), i(p, prefix + "space.unreadable"),
                        i(p, prefix + "space.missing")),
                p.getProperty(prefix + "composition", ""), nameNode, Boolean.parseBoolean(p.getProperty(prefix + "exact")),
                p.getProperty(prefix + "problems", ""));
    }

    /** NameNode figures from a census's counter deltas: mean and max per counter over the checkpoints. */
    public static Map<String, Double> counterFigures(Map<Long, Map<String, Long>> deltas) {
        Map<String, Double> figures = new LinkedHashMap<>();
        Map<String, List<Long>> byCounter = new LinkedHashMap<>();
        deltas.values().forEach(delta -> delta.forEach((name, value) ->
                byCounter.computeIfAbsent(name, n -> new ArrayList<>()).add(value)));
        byCounter.forEach((name, values) -> {
            figures.put(name + ".mean", values.stream().mapToLong(Long::longValue).average().orElse(Double.NaN));
            figures.put(name + ".median", (double) CheckpointFileCensus.median(values));
            figures.put(name + ".max", (double) values.stream().mapToLong(Long::longValue).max().orElse(0));
        });
        return figures;
    }

    private static int i(Properties p, String key) {
        return Integer.parseInt(p.getProperty(key, "0"));
    }

    private static long l(Properties p, String key) {
        return Long.parseLong(p.getProperty(key, "0"));
    }

    private static double d(Properties p, String key) {
        return Double.parseDouble(p.getProperty(key, "NaN"));
    }
}

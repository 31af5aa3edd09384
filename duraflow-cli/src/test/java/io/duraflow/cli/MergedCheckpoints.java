package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CheckpointVerifier;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.StateFileRegistry;
import io.duraflow.cli.demo.ExactOutput;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the checkpoint file-merging integration tests configure and check in a job's
 * checkpoint directory ({@code <dir>/<job id>/}):
 * <pre>
 *   chk-&lt;n&gt;/_metadata                      a retained checkpoint; with merging nothing else is in chk-&lt;n&gt;/
 *   shared/subtask-&lt;i&gt;-&lt;p&gt;-v&lt;vertex&gt;/cp&lt;id&gt;-&lt;uuid&gt;   merged incremental state (SST files) of one subtask
 *   taskowned/&lt;tm id&gt;-&lt;run id&gt;/cp&lt;id&gt;-&lt;uuid&gt;       merged private state of one run of the job's tasks on one TaskManager
 * </pre>
 */
final class MergedCheckpoints {
    /** How long a job's directory may take to become clean after the job ended (TaskManagers delete on their own threads). */
    static final Duration CLEAN_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);

    /** File merging off, within one checkpoint, or across checkpoints. */
    enum Merging {
        OFF, WITHIN, ACROSS
    }

    private MergedCheckpoints() {}

    /**
     * Streaming, a checkpoint every {@code interval}, RocksDB incremental, nothing inlined into
     * {@code _metadata} (so every piece of state is a file or a segment), file merging as given,
     * and {@code retain-on-cancellation} or the default retention.
     */
    static Map<String, String> config(Path checkpoints, String interval, Merging merging, boolean retain) {
        return config(FsPath.of(checkpoints), interval, merging, retain);
    }

    /** {@link #config(Path, String, Merging, boolean)} with checkpoints on any file system ({@code hdfs://...}). */
    static Map<String, String> config(FsPath checkpoints, String interval, Merging merging, boolean retain) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", interval);
        config.put("execution.checkpointing.dir", checkpoints.isLocal() ? checkpoints.toLocalPath().toString()
                : checkpoints.toString());
        config.put("state.backend.type", "rocksdb");
        config.put("state.backend.incremental", "true");
        config.put("state.storage.inline-threshold", "0");
        config.put("execution.checkpointing.file-merging.enabled", Boolean.toString(merging != Merging.OFF));
        if (merging == Merging.ACROSS) {
            config.put("execution.checkpointing.file-merging.across-checkpoint-boundary", "true");
        }
        if (retain) {
            config.put("execution.checkpointing.retention", "retain-on-cancellation");
        }
        return config;
    }

    /** {@link StreamingKeyedSum}'s parameters, writing through its exactly-once file sink to {@code output}. */
    static Map<String, String> keyedSum(long records, long keys, long rate, Path output) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("records", Long.toString(records));
        params.put("keys", Long.toString(keys));
        params.put("rate", Long.toString(rate));
        params.put("output", output.toString());
        return params;
    }

    // ------------------------------------------------------------------ checks

    /** Every (key, sum, count) of the plain loop committed exactly once, nothing else, no in-progress file. */
    static void assertExactOutput(Path output, long records, long keys) throws IOException {
        List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output), records, keys);
        assertThat(problems).as("problems of the committed output in %s", output).isEmpty();
        try (Stream<Path> files = Files.list(output)) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).as("files in %s", output).isNotEmpty()
                    .allMatch(name -> name.startsWith("part-"));
        }
    }

    /** {@link CheckpointVerifier} on the job's checkpoint directory now. */
    static CheckpointVerifier.Report verify(Path jobDirectory) throws IOException {
        return verify(FsPath.of(jobDirectory));
    }

    /** {@link CheckpointVerifier} on the job's checkpoint directory, on the file system its scheme names, now. */
    static CheckpointVerifier.Report verify(FsPath jobDirectory) throws IOException {
        return CheckpointVerifier.verify(FileSystems.get(jobDirectory), jobDirectory);
    }

    /**
     * Waits until {@link CheckpointVerifier} finds at least one retained checkpoint and no missing,
     * corrupt or orphan file in the directory of an ended job, and returns that report. A
     * TaskManager may still delete files of the ended run for a moment, so an orphan may go
     * away; a missing or corrupt file never comes back, and fails at once.
     */
    static CheckpointVerifier.Report awaitClean(Path jobDirectory) {
        return awaitClean(FsPath.of(jobDirectory));
    }

    /** {@link #awaitClean(Path)} on any file system ({@code hdfs://...}). */
    static CheckpointVerifier.Report awaitClean(FsPath jobDirectory) {
        AtomicReference<CheckpointVerifier.Report> last = new AtomicReference<>();
        try {
            return await("checkpoints verify " + jobDirectory + " finds nothing wrong").atMost(CLEAN_TIMEOUT)
                    .pollInterval(POLL)
                    .failFast("a retained checkpoint refers to a missing or corrupt file", () -> last.get() != null
                            && (!last.get().scan().missing().isEmpty() || !last.get().corrupt().isEmpty()))
                    .until(() -> {
                        CheckpointVerifier.Report report = verify(jobDirectory);
                        last.set(report);
                        return report;
                    }, report -> report.isClean() && !report.checkpointIds().isEmpty());
        } catch (ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
            CheckpointVerifier.Report report = last.get();
            throw new AssertionError("checkpoints verify " + jobDirectory + ": " + (report == null ? "no report"
                    : String.join("\n  ", CheckpointsCommand.Verify.format(report))) + "\n  files: "
                    + relativeFiles(jobDirectory), e);
        }
    }

    /**
     * Merging happened in the retained checkpoints: they refer to merged files under both
     * {@code shared/subtask-*} and {@code taskowned/*}, to more segments than merged files, and
     * {@code chk-<n>/} holds nothing but {@code _metadata} (every private stream was merged).
     */
    static void assertMerged(CheckpointVerifier.Report report, Path jobDirectory) throws IOException {
        List<Path> shared = mergedFiles(jobDirectory, "shared");
        List<Path> taskOwned = mergedFiles(jobDirectory, "taskowned");
        String files = relativeFiles(jobDirectory).toString();
        assertThat(shared).as("merged files under %s/shared/subtask-*: %s", jobDirectory, files).isNotEmpty()
                .allMatch(file -> file.getParent().getFileName().toString().matches("subtask-\\d+-\\d+-v\\d+"));
        assertThat(taskOwned).as("merged files under %s/taskowned/*: %s", jobDirectory, files).isNotEmpty();
        assertThat(report.mergedFiles()).as("merged files the retained checkpoints refer to")
                .isEqualTo(shared.size() + taskOwned.size());
        assertThat(report.segments()).as("segments in the %d merged files (fewer files than segments)",
                report.mergedFiles()).isGreaterThan(report.mergedFiles());
        for (long id : report.checkpointIds()) {
            assertThat(relativeFiles(jobDirectory.resolve("chk-" + id))).as("files in chk-%d", id)
                    .containsExactly("_metadata");
        }
        assertThat(plainFiles(jobDirectory.resolve("shared"))).as("unmerged files directly in shared/").isEmpty();
    }

    /** One line about a verified, merged job directory. */
    static String describe(CheckpointVerifier.Report report) {
        return String.format(Locale.ROOT, "checkpoints %s: %d files referenced (%d merged, %d segments), %d on disk,"
                        + " %,d bytes referenced, %,d on disk (%.2fx)", report.checkpointIds(), report.referencedFiles(),
                report.mergedFiles(), report.segments(), report.filesOnDisk(), report.referencedBytes(),
                report.bytesOnDisk(), report.referencedBytes() == 0 ? 0.0
                        : (double) report.bytesOnDisk() / report.referencedBytes());
    }

    // ------------------------------------------------------------------ reading directories

    /** The files in the file-merging directories right below {@code <job>/<area>/} (area: shared or taskowned). */
    static List<Path> mergedFiles(Path jobDirectory, String area) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path directory : entries(jobDirectory.resolve(area))) {
            if (Files.isDirectory(directory)) {
                for (Path file : entries(directory)) {
                    if (Files.isRegularFile(file)) {
                        files.add(file);
                    }
                }
            }
        }
        return files;
    }

    /** Every merged file of the job (shared and task-owned). */
    static List<Path> mergedFiles(Path jobDirectory) throws IOException {
        List<Path> files = new ArrayList<>(mergedFiles(jobDirectory, "shared"));
        files.addAll(mergedFiles(jobDirectory, "taskowned"));
        return files;
    }

    /** The names of the directories right below {@code <job>/<area>/}, sorted. */
    static List<String> mergingDirectories(Path jobDirectory, String area) throws IOException {
        return entries(jobDirectory.resolve(area)).stream().filter(Files::isDirectory)
                .map(p -> p.getFileName().toString()).sorted().toList();
    }

    /** Regular files directly in {@code directory}. */
    private static List<Path> plainFiles(Path directory) throws IOException {
        return entries(directory).stream().filter(Files::isRegularFile).toList();
    }

    private static List<Path> entries(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.toList();
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }

    /** Every regular file below {@code directory}, relative to it, sorted; none if it does not exist. */
    static List<String> relativeFiles(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).map(f -> directory.relativize(f).toString()).sorted().toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of("(changing while listed: " + e + ")");
        }
    }

    /** Every file below {@code directory} on its file system, relative to it, sorted; none if it does not exist. */
    static List<String> relativeFiles(FsPath directory) {
        if (directory.isLocal()) {
            return relativeFiles(directory.toLocalPath());
        }
        try {
            return filesWithSizes(directory).keySet().stream().toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of("(cannot list: " + e + ")");
        }
    }

    /** Relative path -> size of every file below {@code directory} on its file system (none if it does not exist). */
    static Map<String, Long> filesWithSizes(FsPath directory) throws IOException {
        Map<String, Long> sizes = new TreeMap<>();
        addFiles(FileSystems.get(directory), directory, "", sizes);
        return sizes;
    }

    private static void addFiles(FileSystem fileSystem, FsPath directory, String prefix, Map<String, Long> sizes)
            throws IOException {
        for (io.duraflow.fs.FileStatus status : fileSystem.listIfExists(directory)) {
            String name = prefix + status.path().name();
            if (status.isDirectory()) {
                addFiles(fileSystem, status.path(), name + "/", sizes);
            } else {
                sizes.put(name, status.lengthBytes());
            }
        }
    }

    /** Relative path -> size of every regular file below {@code directory}. */
    static Map<String, Long> filesWithSizes(Path directory) throws IOException {
        Map<String, Long> sizes = new TreeMap<>();
        for (String file : relativeFiles(directory)) {
            sizes.put(file, Files.size(directory.resolve(file)));
        }
        return sizes;
    }

    /** The files (state files and segments' physical files) the checkpoint whose _metadata this is refers to. */
    static Set<Path> referencedFiles(Path metadata) throws IOException {
        CompletedCheckpoint checkpoint = CheckpointMetadataFormat.read(LocalFileSystem.INSTANCE, FsPath.of(metadata));
        Set<Path> files = new TreeSet<>();
        for (FsPath file : StateFileRegistry.filesOf(checkpoint)) {
            files.add(file.toLocalPath());
        }
        return files;
    }

    /** The ids of the {@code chk-<n>} directories of a job, sorted. */
    static List<Long> checkpointDirectories(Path jobDirectory) throws IOException {
        return entries(jobDirectory).stream().map(p -> p.getFileName().toString()).filter(n -> n.matches("chk-\\d+"))
                .map(n -> Long.parseLong(n.substring(4))).sorted().toList();
    }
}

package io.duraflow.checkpoint;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a job's checkpoint directory ({@code <dir>/<job id>/}) with what its retained
 * checkpoints refer to, like fsck: the check behind the "no leftover files" guarantee, the job-end
 * cleanup ({@code CheckpointRetentionStep}) and a later {@code duraflow checkpoints verify}.
 *
 * <p>Rules:
 * <ol>
 *   <li>A retained checkpoint refers to its {@code _metadata} and to every file one of its
 *       handles points to, wherever that file lies (a claimed restore may refer to files outside).</li>
 *   <li><b>Missing:</b> a referenced file that does not exist, or that ends before the end of a
 *       segment that refers to it.</li>
 *   <li><b>Orphan:</b> a file under the job's directory that no retained checkpoint refers to.
 *       Savepoint directories ({@code savepoint-*}) are never orphans: the job never deletes a
 *       savepoint.</li>
 *   <li><b>Empty directories</b> under the job's directory are listed apart, deepest first, so
 *       that a cleanup can remove them after the orphans.</li>
 * </ol>
 * Files created or deleted while the scan runs may or may not be seen: scan a job that is not
 * running for an exact answer.
 */
public final class CheckpointDirectoryScan {
    private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-([0-9]{1,18})");

    /**
     * @param missing referenced files that do not exist or are too short, sorted, with why
     * @param orphans files nothing retained refers to, sorted
     * @param emptyDirectories directories under the job's directory with no file below, deepest first
     */
    public record Result(Map<FsPath, String> missing, List<FsPath> orphans, List<FsPath> emptyDirectories) {
        public Result {
            missing = Map.copyOf(missing);
            orphans = List.copyOf(orphans);
            emptyDirectories = List.copyOf(emptyDirectories);
        }

        public boolean isClean() {
            return missing.isEmpty() && orphans.isEmpty();
        }

        /** One line per problem, missing files first. */
        public List<String> describe() {
            List<String> lines = new ArrayList<>();
            new TreeMap<>(missingByName()).forEach((file, why) -> lines.add("missing: " + file + " (" + why + ")"));
            orphans.forEach(file -> lines.add("orphan:  " + file));
            return lines;
        }

        private Map<String, String> missingByName() {
            Map<String, String> byName = new HashMap<>();
            missing.forEach((file, why) -> byName.put(file.toString(), why));
            return byName;
        }
    }

    private CheckpointDirectoryScan() {
    }

    /** Scans the job's directory against {@code retained}. */
    public static Result scan(FileSystem fileSystem, CheckpointDirectories directories,
            List<CompletedCheckpoint> retained) throws IOException {
        Map<FsPath, Long> referencedLength = new HashMap<>();
        for (CompletedCheckpoint checkpoint : retained) {
            referencedLength.merge(checkpoint.metadataFile(), 0L, Math::max);
            forEachSegment(checkpoint, segment -> referencedLength.merge(segment.file(),
                    segment.offset() + segment.length(), Math::max));
        }
        Map<FsPath, String> missing = new HashMap<>();
        for (Map.Entry<FsPath, Long> entry : referencedLength.entrySet()) {
            try {
                long length = fileSystem.status(entry.getKey()).lengthBytes();
                if (length < entry.getValue()) {
                    missing.put(entry.getKey(), length + " bytes, a segment ends at byte " + entry.getValue());
                }
            } catch (NoSuchFileException e) {
                missing.put(entry.getKey(), "does not exist");
            }
        }
        List<FsPath> orphans = new ArrayList<>();
        List<FsPath> empty = new ArrayList<>();
        walk(fileSystem, directories.jobDirectory(), referencedLength, orphans, empty, true);
        orphans.sort(Comparator.comparing(FsPath::toString));
        return new Result(missing, orphans, empty);
    }

    /**
     * The checkpoints whose {@code chk-<n>/_metadata} is in the job's directory, oldest first: what
     * a scan without the HA store (the job ended, its pointers are gone) takes as retained.
     *
     * @throws IOException naming the file if a metadata file cannot be read
     */
    public static List<CompletedCheckpoint> checkpointsWithMetadata(FileSystem fileSystem,
            CheckpointDirectories directories, String jobId) throws IOException {
        TreeMap<Long, CompletedCheckpoint> found = new TreeMap<>();
        for (FileStatus status : fileSystem.listIfExists(directories.jobDirectory())) {
            Matcher name = CHECKPOINT_DIRECTORY.matcher(status.path().name());
            if (status.isDirectory() && name.matches()) {
                long id = Long.parseLong(name.group(1));
                FsPath metadata = directories.metadata(id);
                if (fileSystem.exists(metadata)) {
                    found.put(id, CheckpointMetadataFormat.read(fileSystem, metadata, jobId, id));
                }
            }
        }
        return List.copyOf(found.values());
    }

    /** The file-merging directories of the job (right below {@code shared/} and {@code taskowned/}), sorted. */
    public static List<FsPath> fileMergingDirectories(FileSystem fileSystem, CheckpointDirectories directories)
            throws IOException {
        List<FsPath> found = new ArrayList<>();
        for (FsPath parent : List.of(directories.shared(), directories.taskOwned())) {
            for (FileStatus status : fileSystem.listIfExists(parent)) {
                if (status.isDirectory()) {
                    found.add(status.path());
                }
            }
        }
        found.sort(Comparator.comparing(FsPath::toString));
        return found;
    }

    /** Every file below {@code directory} (none if it does not exist), sorted. */
    public static List<FsPath> filesUnder(FileSystem fileSystem, FsPath directory) throws IOException {
        List<FsPath> files = new ArrayList<>();
        collectFiles(fileSystem, directory, files);
        files.sort(Comparator.comparing(FsPath::toString));
        return files;
    }

    private static void collectFiles(FileSystem fileSystem, FsPath directory, List<FsPath> files) throws IOException {
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            if (status.isDirectory()) {
                collectFiles(fileSystem, status.path(), files);
            } else {
                files.add(status.path());
            }
        }
    }

    /** @return whether a file lies below {@code directory} */
    private static boolean walk(FileSystem fileSystem, FsPath directory, Map<FsPath, Long> referenced,
            List<FsPath> orphans, List<FsPath> empty, boolean top) throws IOException {
        boolean hasFile = false;
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            if (status.isDirectory()) {
                if (status.path().name().startsWith("savepoint-")) {
                    hasFile = true;
                } else {
                    hasFile |= walk(fileSystem, status.path(), referenced, orphans, empty, false);
                }
            } else {
                hasFile = true;
                if (!referenced.containsKey(status.path())) {
                    orphans.add(status.path());
                }
            }
        }
        if (!hasFile && !top) {
            empty.add(directory);
        }
        return hasFile;
    }

    private static void forEachSegment(CompletedCheckpoint checkpoint, java.util.function.Consumer<FileSegmentHandle> action) {
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState state : operator.subtasks().values()) {
                for (KeyedStateHandle handle : state.keyedState()) {
                    for (StreamStateHandle stream : handle.streams()) {
                        if (stream instanceof FileSegmentHandle segment) {
                            action.accept(segment);
                        }
                    }
                }
                for (OperatorStateHandle handle : state.operatorState()) {
                    if (handle.stream() instanceof FileSegmentHandle segment) {
                        action.accept(segment);
                    }
                }
            }
        }
    }
}

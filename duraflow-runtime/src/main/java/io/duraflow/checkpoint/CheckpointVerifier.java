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
import io.duraflow.state.filemerging.MergedFileFormat;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code duraflow checkpoints verify}: checks a job's checkpoint directory like fsck, without the
 * cluster (corrupt metadata, missing files, corrupt merged segments, orphans). Its rules: see
 * docs/design/checkpoint-cleanup.md#checkpointverifier.
 */
public final class CheckpointVerifier {
    private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-([0-9]{1,18})");

    private CheckpointVerifier() {
    }

    /**
     * @param checkpointIds the retained checkpoints found, oldest first
     * @param referencedFiles distinct files they refer to, {@code _metadata} files included
     * @param mergedFiles of those, the merged ones
     * @param segments segments in merged files that were checked
     * @param referencedBytes bytes the retained checkpoints refer to (each segment once)
     * @param bytesOnDisk bytes of every file under the job's directory
     * @param corrupt files (metadata or merged files) whose bytes are not what was written, with why
     * @param scan missing files and orphans
     */
    public record Report(FsPath jobDirectory, List<Long> checkpointIds, int referencedFiles, int mergedFiles,
            int segments, long referencedBytes, long bytesOnDisk, int filesOnDisk, Map<FsPath, String> corrupt,
            CheckpointDirectoryScan.Result scan) {
        public Report {
            checkpointIds = List.copyOf(checkpointIds);
            corrupt = Map.copyOf(corrupt);
        }

        public boolean isClean() {
            return corrupt.isEmpty() && scan.isClean();
        }

        /** One line per problem: corrupt, then missing, then orphans. */
        public List<String> problems() {
            List<String> lines = new ArrayList<>();
            new TreeMap<>(byName(corrupt)).forEach((file, why) -> lines.add("corrupt: " + (why.contains(file) ? why
                    : file + ": " + why)));
            lines.addAll(scan.describe());
            return lines;
        }

        private static Map<String, String> byName(Map<FsPath, String> map) {
            Map<String, String> named = new HashMap<>();
            map.forEach((file, why) -> named.put(file.toString(), why));
            return named;
        }
    }

    /** Verifies the checkpoints of the job whose checkpoint directory ({@code <dir>/<job id>}) is {@code jobDirectory}. */
    public static Report verify(FileSystem fileSystem, FsPath jobDirectory) throws IOException {
        CheckpointDirectories directories = new CheckpointDirectories(jobDirectory);
        String jobId = jobDirectory.name();
        Map<FsPath, String> corrupt = new LinkedHashMap<>();
        List<CompletedCheckpoint> retained = new ArrayList<>();
        boolean allRead = true;
        for (FileStatus status : fileSystem.list(jobDirectory)) {
            Matcher name = CHECKPOINT_DIRECTORY.matcher(status.path().name());
            if (!status.isDirectory() || !name.matches()) {
                continue;
            }
            long id = Long.parseLong(name.group(1));
            FsPath metadata = directories.metadata(id);
            if (!fileSystem.exists(metadata)) {
                continue;
            }
            try {
                retained.add(CheckpointMetadataFormat.read(fileSystem, metadata, jobId, id));
            } catch (CorruptCheckpointFileException e) {
                corrupt.put(metadata, e.getMessage());
                allRead = false;
            }
        }
        retained.sort(java.util.Comparator.comparingLong(CompletedCheckpoint::checkpointId));
        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fileSystem, directories, retained);
        if (!allRead) {
            // Rule 1: what the unreadable checkpoint refers to is unknown; no file is an orphan for sure.
            scan = new CheckpointDirectoryScan.Result(scan.missing(), List.of(), scan.emptyDirectories());
        }
        Set<FsPath> referenced = new HashSet<>();
        Set<FsPath> merged = new HashSet<>();
        Set<FileSegmentHandle> segments = new HashSet<>();
        long[] referencedBytes = {0};
        for (CompletedCheckpoint checkpoint : retained) {
            referenced.add(checkpoint.metadataFile());
            forEachStream(checkpoint, stream -> {
                if (stream instanceof FileSegmentHandle segment) {
                    referenced.add(segment.file());
                    if (segments.add(segment)) {
                        referencedBytes[0] += segment.length();
                    }
                    if (directories.fileMergingDirectoryOf(segment.file()) != null) {
                        merged.add(segment.file());
                    }
                }
            });
        }
        int checkedSegments = 0;
        for (FileSegmentHandle segment : segments) {
            if (!merged.contains(segment.file()) || scan.missing().containsKey(segment.file())) {
                continue;
            }
            checkedSegments++;
            Optional<String> problem = MergedFileFormat.verify(fileSystem, segment);
            if (problem.isPresent() && !corrupt.containsKey(segment.file())) {
                corrupt.put(segment.file(), problem.get());
            }
        }
        long[] disk = {0, 0};
        sizeUnder(fileSystem, jobDirectory, disk);
        return new Report(jobDirectory, retained.stream().map(CompletedCheckpoint::checkpointId).toList(),
                referenced.size(), merged.size(), checkedSegments, referencedBytes[0], disk[0], (int) disk[1], corrupt,
                scan);
    }

    private static void sizeUnder(FileSystem fileSystem, FsPath directory, long[] bytesAndFiles) throws IOException {
        List<FileStatus> entries;
        try {
            entries = fileSystem.list(directory);
        } catch (NoSuchFileException e) {
            return;
        }
        for (FileStatus status : entries) {
            if (status.isDirectory()) {
                if (!status.path().name().startsWith("savepoint-")) {
                    sizeUnder(fileSystem, status.path(), bytesAndFiles);
                }
            } else {
                bytesAndFiles[0] += status.lengthBytes();
                bytesAndFiles[1]++;
            }
        }
    }

    static void forEachStream(CompletedCheckpoint checkpoint, Consumer<StreamStateHandle> action) {
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState state : operator.subtasks().values()) {
                for (KeyedStateHandle handle : state.keyedState()) {
                    handle.streams().forEach(action);
                }
                for (OperatorStateHandle handle : state.operatorState()) {
                    action.accept(handle.stream());
                }
            }
        }
    }
}

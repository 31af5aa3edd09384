package io.duraflow.api.connectors;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Lists a file or a directory's files and cuts them into byte ranges; runs in the JobManager. */
final class FileSplitPlanner {
    static final long DEFAULT_SPLIT_SIZE_BYTES = 32L << 20;

    private FileSplitPlanner() {}

    static void validateSplitSize(long splitSizeBytes) {
        if (splitSizeBytes < 1) {
            throw new IllegalArgumentException("split size must be at least 1 byte, got " + splitSizeBytes);
        }
    }

    /**
     * The splits of {@code root}: a file, or the regular files directly in a directory (not
     * recursive; names starting with '.' or '_' and hidden files skipped), ordered by name.
     * Every file is cut into ranges of {@code splitSizeBytes}, the last one shorter; empty files
     * have no splits.
     *
     * @throws FileNotFoundException {@code input path not found: /abs/path} if root does not exist
     */
    static List<FileSplit> plan(Path root, long splitSizeBytes) throws IOException {
        validateSplitSize(splitSizeBytes);
        if (!Files.exists(root)) {
            throw new FileNotFoundException("input path not found: " + root);
        }
        List<FileSplit> splits = new ArrayList<>();
        List<Path> files = Files.isDirectory(root) ? listVisibleFiles(root) : List.of(root);
        for (Path file : files) {
            splits.addAll(cut(file.toString(), Files.size(file), splitSizeBytes));
        }
        return splits;
    }

    /** The ranges of {@code splitSizeBytes} of a file of {@code sizeBytes}, the last one shorter; none if empty. */
    static List<FileSplit> cut(String path, long sizeBytes, long splitSizeBytes) {
        List<FileSplit> splits = new ArrayList<>();
        for (long start = 0; start < sizeBytes; start += splitSizeBytes) {
            splits.add(new FileSplit(path, start, Math.min(splitSizeBytes, sizeBytes - start)));
        }
        return splits;
    }

    /**
     * The files of a directory that count as input, ordered by name: regular files directly in
     * it whose names start with neither '.' nor '_' and that are not hidden. Writers rely on the
     * rule: they write under a hidden name and rename when the file is complete.
     */
    static List<Path> listVisibleFiles(Path directory) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                if (isInputName(entry.getFileName().toString()) && Files.isRegularFile(entry)
                        && !Files.isHidden(entry)) {
                    files.add(entry);
                }
            }
        }
        files.sort(null);
        return files;
    }

    /** Whether a file name may be input: names starting with '.' or '_' are a writer's work in progress. */
    static boolean isInputName(String name) {
        return !name.startsWith(".") && !name.startsWith("_");
    }
}

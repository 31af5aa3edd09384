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
        for (Path file : listFiles(root)) {
            long size = Files.size(file);
            String name = file.toString();
            for (long start = 0; start < size; start += splitSizeBytes) {
                splits.add(new FileSplit(name, start, Math.min(splitSizeBytes, size - start)));
            }
        }
        return splits;
    }

    private static List<Path> listFiles(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of(root);
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_") || !Files.isRegularFile(entry)
                        || Files.isHidden(entry)) {
                    continue;
                }
                files.add(entry);
            }
        }
        files.sort(null);
        return files;
    }
}

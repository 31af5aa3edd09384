package io.duraflow.spill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files one spilling operator made in its spill directory. Each is registered as it is
 * created, before anything is written to it, so {@link #deleteAll} removes it even if writing
 * it failed. Single-threaded, like the operators.
 */
final class SpillFiles {
    private final Path directory;
    private final List<Path> files = new ArrayList<>();

    SpillFiles(Path directory) {
        this.directory = directory;
    }

    /** Creates an empty file named {@code prefix*suffix} in the spill directory. */
    Path create(String prefix, String suffix) throws IOException {
        Files.createDirectories(directory);
        Path file = Files.createTempFile(directory, prefix, suffix);
        files.add(file);
        return file;
    }

    /** Deletes one file made here; null is ignored. */
    void delete(Path file) throws IOException {
        if (file != null) {
            Files.deleteIfExists(file);
            files.remove(file);
        }
    }

    /** Deletes every file made here, best effort; idempotent. */
    void deleteAll() {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // The spill directory belongs to the TaskManager, which sweeps it when it starts again.
            }
        }
        files.clear();
    }
}

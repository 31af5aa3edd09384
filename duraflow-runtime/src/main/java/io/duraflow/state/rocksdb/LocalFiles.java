package io.duraflow.state.rocksdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting the backend's local directories. */
final class LocalFiles {
    private LocalFiles() {
    }

    /** Deletes {@code directory} and everything under it; nothing if it does not exist. */
    static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (NoSuchFileException ignored) {
                    // deleted meanwhile
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** {@link #deleteTree} that only reports failure: for cleanup paths that must not throw. */
    static boolean deleteTreeQuietly(Path directory) {
        try {
            deleteTree(directory);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}

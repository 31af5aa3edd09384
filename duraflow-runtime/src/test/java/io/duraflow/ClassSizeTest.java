package io.duraflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class in main code of any module is longer than {@value #MAX_LINES} lines: a class that
 * grows past it has taken on a second responsibility, and is split in the change that makes it
 * grow, not later.
 */
class ClassSizeTest {
    private static final int MAX_LINES = 500;

    @Test
    void noMainClassIsLongerThanTheLimit() throws IOException {
        Path root = projectRoot();
        List<String> tooLong;
        try (Stream<Path> modules = Files.list(root)) {
            tooLong = modules.filter(m -> Files.isDirectory(m.resolve("src/main/java")))
                    .flatMap(m -> javaFiles(m.resolve("src/main/java")))
                    .filter(f -> lines(f) > MAX_LINES)
                    .map(f -> root.relativize(f) + " (" + lines(f) + " lines)")
                    .sorted()
                    .toList();
        }
        assertThat(tooLong).as("classes over %d lines: split them by responsibility", MAX_LINES).isEmpty();
    }

    /** The directory holding the Maven wrapper: tests run in their module's directory. */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("no mvnw above %s", Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    private static Stream<Path> javaFiles(Path sources) {
        try {
            return Files.walk(sources).filter(f -> f.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.duraflow.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What an exactly-once {@code FileSink} committed to a directory: the lines of its visible part
 * files ({@code part-*}), in no particular order. Files still in progress are hidden, so a test
 * that reads this during a run sees only what completed checkpoints committed.
 */
public final class CommittedOutput {
    private CommittedOutput() {}

    /** The committed lines under {@code directory}; none when it does not exist yet. */
    public static List<String> lines(Path directory) {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return lines;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path part : files.filter(f -> f.getFileName().toString().startsWith("part-")).sorted().toList()) {
                lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the committed output in " + directory + ": " + e.getMessage(),
                    e);
        }
        return lines;
    }
}

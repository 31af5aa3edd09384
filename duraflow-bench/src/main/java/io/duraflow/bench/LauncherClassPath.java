package io.duraflow.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The class path {@code bin/duraflow} runs with: the jars of {@code duraflow-cli/target/lib}.
 * A benchmark whose jobs are all bundled gives it to the cluster's processes, so they start as a
 * user's do, class-data archives included (the JVM archives classes from jars only, and the
 * benchmark's own class path holds its classes directory).
 */
final class LauncherClassPath {
    private LauncherClassPath() {}

    static String jars() {
        Path lib = Path.of("..", "duraflow-cli", "target", "lib").toAbsolutePath().normalize();
        if (!Files.isRegularFile(lib.resolve("duraflow-cli.jar"))) {
            throw new IllegalStateException("no " + lib.resolve("duraflow-cli.jar")
                    + "; build with './mvnw -q -DskipTests package' (or add -am to the benchmark's command)");
        }
        try (Stream<Path> files = Files.list(lib)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().map(Path::toString)
                    .collect(Collectors.joining(File.pathSeparator));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.duraflow.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints the tails of the process logs in the watched directories when a test fails. Register as
 * {@code @RegisterExtension static final LogsOnFailure LOGS = new LogsOnFailure();} and pass
 * every cluster directory through {@link #watch}: directories watched from {@code @BeforeAll}
 * belong to every test of the class, others only to the test that watched them.
 *
 * <p>It prints after {@code @AfterEach}, not from a {@code TestWatcher}: by the time a watcher is
 * told, JUnit has already deleted the test's {@code @TempDir} with the logs in it. With {@code
 * -Dduraflow.it.keep-logs=DIR} it also copies the watched directories' whole logs to {@code
 * DIR/<test>/}.
 */
public final class LogsOnFailure implements BeforeEachCallback, AfterEachCallback {
    private static final int LINES = 80;

    private final List<Path> classDirs = new CopyOnWriteArrayList<>();
    private final List<Path> testDirs = new CopyOnWriteArrayList<>();
    private volatile boolean inTest;

    public Path watch(Path dir) {
        List<Path> dirs = inTest ? testDirs : classDirs;
        if (!dirs.contains(dir)) {
            dirs.add(dir);
        }
        return dir;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        testDirs.clear();
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        inTest = false;
        context.getExecutionException().ifPresent(cause -> {
            StringBuilder text = new StringBuilder("===== " + context.getDisplayName() + " failed: " + cause + "\n");
            for (Path dir : classDirs) {
                text.append(TestCluster.logTails(dir, LINES));
            }
            for (Path dir : testDirs) {
                text.append(TestCluster.logTails(dir, LINES));
            }
            System.err.println(text);
            String keep = System.getProperty("duraflow.it.keep-logs", "");
            if (!keep.isEmpty()) {
                Path target = Path.of(keep, context.getDisplayName().replaceAll("[^A-Za-z0-9_-]", "_"));
                List<Path> all = new java.util.ArrayList<>(classDirs);
                all.addAll(testDirs);
                for (Path dir : all) {
                    copyLogs(dir, target.resolve(dir.getFileName().toString()));
                }
                System.err.println("Logs kept in " + target);
            }
        });
    }

    private static void copyLogs(Path dir, Path target) {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                Path copy = target.resolve(dir.relativize(file).toString());
                java.nio.file.Files.createDirectories(copy.getParent());
                java.nio.file.Files.copy(file, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (java.io.IOException e) {
            System.err.println("Cannot keep the logs of " + dir + ": " + e);
        }
    }
}

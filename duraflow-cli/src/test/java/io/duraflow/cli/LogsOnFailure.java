package io.duraflow.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps the logs of the processes a test starts under {@code target/process-logs/}, and prints
 * their tails when a test fails. Register as {@code @RegisterExtension static final
 * LogsOnFailure LOGS = new LogsOnFailure();} and pass every cluster directory through
 * {@link #watch} before its processes start: directories watched from {@code @BeforeAll} belong
 * to every test of the class, others only to the test that watched them.
 *
 * <p>The processes write their output to {@code <dir>/log/}: {@code <process>.log} for a
 * JobManager, TaskManager or ZooKeeper ({@link TestCluster}, {@link HaCluster}, and
 * {@link LocalCluster} for {@code local start} and the demos), {@code cli-N.out} and {@code .err}
 * for a command ({@link Cli}). {@link #watch} makes {@code <dir>/log} a symbolic link to
 * {@code target/process-logs/<test class>/[<test method>/]<dir's name>/} (without the last part
 * for a test's {@code @TempDir} itself), so that the logs outlive the test's {@code @TempDir} (the
 * link goes when the test or class ends), and can be followed while a test runs. The class's
 * directory is emptied when the class starts: what is there is from its last run. A directory
 * whose {@code log} existed before it was watched has its logs copied there when its test or
 * class ends.
 *
 * <p>The tails go to the test's output, which failsafe keeps in
 * {@code target/failsafe-reports/<test class>-output.txt}. They are printed after
 * {@code @AfterEach}, not from a {@code TestWatcher}: by the time a watcher is told, JUnit has
 * already deleted the test's {@code @TempDir} with the processes' working files in it.
 */
public final class LogsOnFailure implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final int LINES = 80;
    private static final Path ROOT = Path.of("target", "process-logs").toAbsolutePath();

    private final Scope classScope = new Scope();
    private final Scope testScope = new Scope();
    private final Set<String> testNames = new HashSet<>();
    private volatile Path classLogs;
    private volatile boolean inTest;

    /** Where the processes of {@code dir} log, kept across the test's end; returns {@code dir}. */
    public synchronized Path watch(Path dir) {
        if (classScope.dirs.containsKey(dir)) {
            return dir;
        }
        Scope scope = inTest ? testScope : classScope;
        if (scope.logs == null) {
            // Registered on an instance field, or watched outside a test: no class to file it under.
            scope.logs = ROOT.resolve("unknown");
        }
        if (scope.dirs.containsKey(dir)) {
            return dir;
        }
        Path target = scope.logs.resolve(label(scope, dir));
        scope.dirs.put(dir, target);
        try {
            Files.createDirectories(target);
            Path log = dir.resolve("log");
            if (Files.isSymbolicLink(log)) {
                // Linked by an earlier test of the class (a static @TempDir): this test's processes log here.
                Files.delete(log);
            }
            if (Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
                scope.toCopy.add(dir);
            } else {
                Files.createDirectories(dir);
                Files.createSymbolicLink(log, target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the logs of " + dir + " in " + target, e);
        }
        return dir;
    }

    /**
     * The directory's name, numbered if another directory of the scope has it; nothing for a
     * directory right in java.io.tmpdir (a test's {@code @TempDir}), whose logs are the test's own.
     */
    private static String label(Scope scope, Path dir) {
        Path parent = dir.toAbsolutePath().getParent();
        String name = parent != null && parent.equals(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath())
                ? "" : dir.getFileName().toString();
        String label = name;
        for (int i = 2; scope.labels.contains(label); i++) {
            label = (name.isEmpty() ? "dir" : name) + "-" + i;
        }
        scope.labels.add(label);
        return label;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        classLogs = ROOT.resolve(context.getRequiredTestClass().getSimpleName());
        deleteTree(classLogs);
        Files.createDirectories(classLogs);
        classScope.reset(classLogs);
        testNames.clear();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        String name = context.getTestMethod().map(java.lang.reflect.Method::getName)
                .orElse(context.getDisplayName()).replaceAll("[^A-Za-z0-9_-]", "_");
        String unique = name;
        for (int i = 2; !testNames.add(unique); i++) {
            unique = name + "-" + i;
        }
        testScope.reset(classLogs == null ? null : classLogs.resolve(unique));
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        inTest = false;
        testScope.copyLogs();
        context.getExecutionException().ifPresent(cause -> {
            StringBuilder text = new StringBuilder("===== " + context.getDisplayName() + " failed: " + cause + "\n");
            for (Path dir : classScope.dirs.keySet()) {
                text.append(TestCluster.logTails(dir, LINES));
            }
            for (Path dir : testScope.dirs.keySet()) {
                text.append(TestCluster.logTails(dir, LINES));
            }
            text.append("===== whole logs: ").append(String.join(", ", all(classScope, testScope)));
            System.err.println(text);
        });
        testScope.unlink();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        classScope.copyLogs();
        classScope.unlink();
    }

    private static List<String> all(Scope... scopes) {
        List<String> targets = new ArrayList<>();
        for (Scope scope : scopes) {
            scope.dirs.values().forEach(target -> targets.add(target.toString()));
        }
        return targets;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** The directories watched for a class or for a test, and where their logs go. */
    private static final class Scope {
        final Map<Path, Path> dirs = new LinkedHashMap<>();
        final Set<String> labels = new HashSet<>();
        final List<Path> toCopy = new ArrayList<>();
        Path logs;

        synchronized void reset(Path logs) {
            this.logs = logs;
            dirs.clear();
            labels.clear();
            toCopy.clear();
        }

        /** Copies the logs of the directories that were not linked, as they are now. */
        synchronized void copyLogs() {
            for (Path dir : toCopy) {
                Path log = dir.resolve("log");
                try (Stream<Path> files = Files.list(log)) {
                    for (Path file : files.filter(Files::isRegularFile).toList()) {
                        Files.copy(file, dirs.get(dir).resolve(file.getFileName().toString()),
                                StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    System.err.println("Cannot keep the logs of " + dir + " in " + dirs.get(dir) + ": " + e);
                }
            }
            toCopy.clear();
        }

        /** Removes the links, as JUnit, deleting a {@code @TempDir}, warns of each one that leads out of it. */
        synchronized void unlink() {
            for (Path dir : dirs.keySet()) {
                try {
                    Path log = dir.resolve("log");
                    if (Files.isSymbolicLink(log)) {
                        Files.delete(log);
                    }
                } catch (IOException e) {
                    System.err.println("Cannot remove the link " + dir.resolve("log") + ": " + e);
                }
            }
        }
    }
}

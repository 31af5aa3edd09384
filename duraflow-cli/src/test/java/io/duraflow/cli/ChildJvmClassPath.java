package io.duraflow.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The class path of the integration tests' child JVMs, and an application class-data archive
 * for it, so that the few hundred JobManagers, TaskManagers, ZooKeeper servers and commands the
 * tests start each map their classes instead of loading and verifying them (about 40 % less CPU
 * per start on this 2-core machine, more under load).
 * <p>
 * The JVM (17) archives classes from jar files only, so every class directory of the test class
 * path ({@code target/classes}, {@code target/test-classes}) is packed into a jar under
 * {@code target/child-jvm/}; a jar is rewritten only when its contents change, which keeps its
 * time stamp and with it the archive of an unchanged build. The archive is recorded once per
 * class path ({@code classes-<stamp>.jsa}, the stamp covering every entry's path, size and time),
 * by whichever test JVM takes the lock on {@code recording.lock} first (the others wait for it):
 * {@link ChildJvmRecording} runs a ZooKeeper server, a JobManager, a TaskManager and a job in
 * one JVM that exits by itself and writes what it loaded. A process whose class path does not
 * match an archive ignores it and loads its classes as usual, so the archive changes how fast
 * the processes start, never what they run; without an archive (recording failed) the tests
 * run as before, a line on stderr says why.
 */
final class ChildJvmClassPath {
    /** Recording starts JVMs and a job: a few seconds, a minute at most on a loaded machine. */
    private static final Duration RECORDING_TIMEOUT = Duration.ofMinutes(2);

    private final String classPath;
    private final Path archive;

    private ChildJvmClassPath(String classPath, Path archive) {
        this.classPath = classPath;
        this.archive = archive;
    }

    String classPath() {
        return classPath;
    }

    /** JVM options that map the archive; none without one. */
    List<String> archiveOptions() {
        return archive == null ? List.of()
                : List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }

    /**
     * Jars for the class directories of {@code testClassPath} under {@code workDir}, and the
     * archive for them (recorded now if missing). Falls back to {@code testClassPath} without an
     * archive if anything goes wrong.
     */
    static ChildJvmClassPath prepare(String testClassPath, Path workDir) {
        try {
            Files.createDirectories(workDir);
            List<String> entries = new ArrayList<>();
            for (String entry : testClassPath.split(File.pathSeparator)) {
                Path path = Path.of(entry);
                entries.add(Files.isDirectory(path) ? packed(path, workDir).toString() : entry);
            }
            String classPath = String.join(File.pathSeparator, entries);
            Path archive = workDir.resolve("classes-" + stamp(entries) + ".jsa");
            // The two test JVMs of a module start together: one records, the other waits for its archive
            // (both recording at once took about 31 s each on 2 cores, and one deleted the other's archive).
            try (FileChannel channel = FileChannel.open(workDir.resolve("recording.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
                if (!Files.exists(archive)) {
                    record(classPath, archive, workDir);
                }
            }
            checkMapped(classPath, archive);
            shareWithLocalClusters(classPath, archive);
            return new ChildJvmClassPath(classPath, archive);
        } catch (IOException | RuntimeException e) {
            System.err.println("Child JVMs start without a class-data archive: " + e);
            return new ChildJvmClassPath(testClassPath, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ChildJvmClassPath(testClassPath, null);
        }
    }

    /** {@code directory} as a jar in {@code workDir}, rewritten only if its contents changed. */
    private static Path packed(Path directory, Path workDir) throws IOException {
        Path target = directory.toAbsolutePath().normalize();
        String name = target.getParent().getParent().getFileName() + "-" + target.getFileName() + "-"
                + Integer.toHexString(target.toString().hashCode()) + ".jar";
        Path jar = workDir.resolve(name);
        byte[] bytes = jarOf(target);
        if (!Files.exists(jar) || !Arrays.equals(Files.readAllBytes(jar), bytes)) {
            Path tmp = Files.createTempFile(workDir, name, ".tmp");
            Files.write(tmp, bytes);
            Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return jar;
    }

    /** The files under {@code directory} as a jar, in name order with a fixed time: equal trees give equal bytes. */
    private static byte[] jarOf(Path directory) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (Path file : files) {
                JarEntry entry = new JarEntry(directory.relativize(file).toString().replace(File.separatorChar, '/'));
                entry.setTime(0);
                jar.putNextEntry(entry);
                jar.write(Files.readAllBytes(file));
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    /** Changes whenever a class path entry or the JVM changes, so that a rebuild records a fresh archive. */
    private static String stamp(List<String> entries) {
        long hash = 1125899906842597L;
        hash = 31 * hash + System.getProperty("java.vm.version", "").hashCode();
        for (String entry : entries) {
            File file = new File(entry);
            hash = 31 * hash + entry.hashCode();
            hash = 31 * hash + file.length();
            hash = 31 * hash + file.lastModified();
        }
        return Long.toHexString(hash);
    }

    /**
     * Runs {@link ChildJvmRecording} with {@code -XX:ArchiveClassesAtExit} and moves the archive
     * into place once it exited by itself with 0 (an archive cut short would be refused by every
     * process, silently).
     */
    private static void record(String classPath, Path archive, Path workDir) throws IOException, InterruptedException {
        Path runDir = Files.createTempDirectory(workDir, "recording-");
        Path recording = runDir.resolve("classes.jsa");
        Path log = runDir.resolve("recording.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:ArchiveClassesAtExit=" + recording, "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xmx512m",
                "-XX:TieredStopAtLevel=1", "-Dduraflow.log.level=WARN", "-cp", classPath,
                ChildJvmRecording.class.getName(), runDir.toString()));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).directory(runDir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(RECORDING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            throw new IOException("recording the class-data archive took over " + RECORDING_TIMEOUT + "; see " + log);
        }
        if (process.exitValue() != 0 || !Files.exists(recording) || Files.size(recording) == 0) {
            throw new IOException("recording the class-data archive failed (exit code " + process.exitValue() + "):\n"
                    + ChildJvm.tail(log, 30));
        }
        try (Stream<Path> files = Files.list(workDir)) {
            for (Path stale : files.filter(f -> f.getFileName().toString().matches("classes-.*\\.jsa")).toList()) {
                Files.deleteIfExists(stale);
            }
        }
        Files.move(recording, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.printf("Recorded the child JVMs' class-data archive %s (%,d bytes) in %.1f s%n", archive,
                Files.size(archive), (System.nanoTime() - start) / 1e9);
        deleteTree(runDir);
    }

    /**
     * The local clusters that tests start through the command line ({@code local start}, the
     * demos) run their processes with the command's class path, which is this one: they get this
     * archive where {@link LocalCluster} looks for one, instead of recording their own at the
     * first stop (which made that stop wait for two archives to be written).
     */
    private static void shareWithLocalClusters(String classPath, Path archive) throws IOException {
        for (String role : List.of("jobmanager", "taskmanager")) {
            Path path = ClassDataSharing.archivePath(role, classPath);
            if (path != null && !Files.exists(path)) {
                Path tmp = path.resolveSibling(path.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
                Files.deleteIfExists(tmp);
                Files.createLink(tmp, archive);
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    /**
     * Fails unless a JVM with this class path maps the archive: with {@code -Xshare:on} a JVM
     * that cannot use it exits with an error instead of silently loading its classes as usual.
     */
    private static void checkMapped(String classPath, Path archive) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-XX:TieredStopAtLevel=1", "-cp", classPath,
                Duraflow.class.getName(), "--version").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("a JVM with the tests' class path cannot map " + archive + ": " + output.strip());
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a leftover under target/ does no harm
        }
    }
}

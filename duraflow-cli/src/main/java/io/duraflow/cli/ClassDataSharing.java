package io.duraflow.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Application class-data sharing: the first JobManager and TaskManager started from a build
 * record the classes they load into an archive next to the build's jars; later processes map
 * it and start about a third faster. The JVM ignores an archive that does not match the
 * class path (after a rebuild) and {@code DURAFLOW_CDS=off} turns this off.
 *
 * <p>A recorder writes to a temporary file named in its note ({@link #recordingNote});
 * {@link LocalCluster#stop} moves it into place only once the recorder exited by itself. An archive cut short by a
 * SIGKILL while it was written would otherwise be kept and silently refused by every later
 * process (seen on a loaded machine: each TaskManager then loaded its classes from the jars).
 */
final class ClassDataSharing {
    private ClassDataSharing() {}

    /** Per recorder, under the work directory: the archive it writes at exit, and where that goes once complete. */
    private static final String RECORDINGS = "cds-recordings";

    /** How long {@link LocalCluster#stop} waits for a process that writes a class-data archive at exit. */
    static final Duration RECORDER_GRACE = Duration.ofSeconds(30);

    /**
     * The JVM options of process {@code name} for class-data sharing: map its role's archive, or
     * record one (the first JobManager and TaskManager) with its note at {@code recordingNote}.
     */
    static List<String> jvmOptions(String name, Path recordingNote) throws IOException {
        if ("off".equalsIgnoreCase(System.getenv("DURAFLOW_CDS"))) {
            return List.of();
        }
        String role = name.startsWith("jobmanager") ? "jobmanager" : name.startsWith("taskmanager") ? "taskmanager" : null;
        Path archive = role == null ? null : archivePath(role, processClassPath());
        if (archive == null) {
            return List.of();
        }
        if (Files.exists(archive)) {
            return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        }
        boolean recorder = name.equals("jobmanager") || name.equals("jobmanager-1") || name.equals("taskmanager-1");
        if (!recorder) {
            return List.of();
        }
        Path recording = archive.resolveSibling(archive.getFileName() + "." + name + ".tmp");
        Files.createDirectories(recordingNote.getParent());
        Files.writeString(recordingNote, recording + "\n" + archive);
        return List.of("-XX:ArchiveClassesAtExit=" + recording, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }

    /**
     * Where the class-data archive of {@code role}'s processes ("jobmanager" or "taskmanager")
     * with this class path is kept: next to the directory of its first entry (for a build,
     * {@code duraflow-cli/target/}); null if there is no such writable directory, or if the class
     * path holds a directory: the JVM archives classes from jars only, and a recorder with a
     * directory on its class path writes nothing, so every start would record in vain (and
     * every stop wait for it) while no process ever maps an archive.
     */
    static Path archivePath(String role, String classPath) {
        if (classPath.isEmpty()) {
            return null;
        }
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (Files.isDirectory(Path.of(entry))) {
                return null;
            }
        }
        Path first = Path.of(classPath.split(java.io.File.pathSeparator)[0]).toAbsolutePath();
        Path directory = first.getParent() == null ? null : first.getParent().getParent();
        if (directory == null || !Files.isWritable(directory)) {
            return null;
        }
        return directory.resolve("duraflow-" + role + "-" + classPathStamp(classPath) + ".jsa");
    }

    /**
     * The class path of the cluster's processes: this JVM's, unless {@code duraflow.classpath}
     * names a leaner one (the benchmark runs with Apache Flink's jars, which the processes do not need).
     */
    static String processClassPath() {
        return System.getProperty("duraflow.classpath", System.getProperty("java.class.path", ""));
    }

    /** Changes whenever a class path entry changes, so a rebuild records a fresh archive. */
    private static String classPathStamp(String classPath) {
        long hash = 1125899906842597L;
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            java.io.File file = new java.io.File(entry);
            hash = 31 * hash + entry.hashCode();
            hash = 31 * hash + file.length();
            hash = 31 * hash + file.lastModified();
        }
        return Long.toHexString(hash);
    }

    /** Where a recorder's note is kept in the work directory: its recording and the archive it becomes. */
    static Path recordingNote(Path workDir, String processName) {
        return workDir.resolve(RECORDINGS).resolve(processName);
    }

    /**
     * Moves a recorder's archive into place if the recorder exited by itself (its note is still
     * there) and wrote one; otherwise deletes what it left. A no-op for non-recorders.
     */
    static void finishRecording(Path note) throws IOException {
        if (!Files.exists(note)) {
            return;
        }
        List<String> lines = Files.readAllLines(note);
        Files.delete(note);
        if (lines.size() != 2) {
            return;
        }
        Path recording = Path.of(lines.get(0));
        Path archive = Path.of(lines.get(1));
        if (Files.isRegularFile(recording) && Files.size(recording) > 0 && !Files.exists(archive)) {
            Files.move(recording, archive, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            pruneArchives(archive, KEPT_ARCHIVES);
        } else {
            Files.deleteIfExists(recording);
        }
    }

    /** Archives kept per role: a few class paths in use side by side (a build, a benchmark's leaner one). */
    static final int KEPT_ARCHIVES = 4;

    /**
     * Deletes all but the {@code kept} newest archives of {@code archive}'s role next to it: every
     * rebuild records a new one (40-50 MB each), and a checkout rebuilt all day had collected 2.6 GB
     * of them. An archive in use by a running process stays readable (its file is mapped).
     */
    static void pruneArchives(Path archive, int kept) throws IOException {
        String name = archive.getFileName().toString();
        int stamp = name.lastIndexOf('-');
        if (stamp < 0 || !name.endsWith(".jsa")) {
            return;
        }
        String prefix = name.substring(0, stamp + 1);
        List<Path> archives;
        try (Stream<Path> files = Files.list(archive.toAbsolutePath().getParent())) {
            archives = files.filter(f -> {
                String n = f.getFileName().toString();
                return n.startsWith(prefix) && n.endsWith(".jsa") && n.indexOf('-', prefix.length()) < 0;
            }).collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        }
        archives.sort(java.util.Comparator.comparing((Path f) -> {
            try {
                return Files.getLastModifiedTime(f).toMillis();
            } catch (IOException e) {
                return 0L;
            }
        }).reversed());
        for (Path old : archives.subList(Math.min(kept, archives.size()), archives.size())) {
            if (!old.equals(archive)) {
                Files.deleteIfExists(old);
            }
        }
    }

    /** A recorder was killed: whatever it wrote is deleted and never used. */
    static void discardRecording(Path note) throws IOException {
        if (!Files.exists(note)) {
            return;
        }
        List<String> lines = Files.readAllLines(note);
        if (!lines.isEmpty()) {
            Files.deleteIfExists(Path.of(lines.get(0)));
        }
        Files.delete(note);
    }
}

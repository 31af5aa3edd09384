package io.duraflow.artifact;

import io.duraflow.api.DuraflowJob;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipException;

/**
 * A job's jar as a user hands it to {@code duraflow run app.jar}: checked to be a readable jar,
 * its SHA-256 (what the JobManager stores it under and every process checks), and the job class
 * in it: the one {@code --class} names, else the manifest's {@value #MANIFEST_JOB_CLASS} (or a
 * {@code Main-Class} that is a job), else the only public concrete {@link DuraflowJob} in it.
 * Every problem is a {@link JobJarException} whose one-line message names the jar.
 */
public final class JobJar {
    /** The manifest attribute that names a jar's job class. */
    public static final String MANIFEST_JOB_CLASS = "Duraflow-Job-Class";

    private final Path path;
    private final String sha256;
    private final long size;

    private JobJar(Path path, String sha256, long size) {
        this.path = path;
        this.sha256 = sha256;
        this.size = size;
    }

    /** The problem with a job's jar, as one line naming it. */
    public static final class JobJarException extends IllegalArgumentException {
        public JobJarException(String message) {
            super(message);
        }

        public JobJarException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Opens and hashes the jar.
     *
     * @throws JobJarException if it is missing, unreadable, or not a jar (zip) file
     */
    public static JobJar open(Path path) {
        if (!Files.exists(path)) {
            throw new JobJarException("jar " + path + " does not exist: check the path");
        }
        if (Files.isDirectory(path) || !Files.isReadable(path)) {
            throw new JobJarException("jar " + path + " cannot be read: " + (Files.isDirectory(path)
                    ? "it is a directory" : "check its permissions"));
        }
        try (JarFile jar = new JarFile(path.toFile())) {
            if (!jar.entries().hasMoreElements()) {
                throw new JobJarException(path + " is not a job's jar: it is empty");
            }
        } catch (ZipException e) {
            throw new JobJarException(path + " is not a jar: " + e.getMessage(), e);
        } catch (NoSuchFileException e) {
            throw new JobJarException("jar " + path + " does not exist: check the path", e);
        } catch (IOException e) {
            throw new JobJarException("jar " + path + " cannot be read: " + e.getMessage(), e);
        }
        try {
            return new JobJar(path, sha256(path), Files.size(path));
        } catch (IOException e) {
            throw new JobJarException("jar " + path + " cannot be read: " + e.getMessage(), e);
        }
    }

    public Path path() {
        return path;
    }

    /** The file name the user knows the jar by. */
    public String fileName() {
        return path.getFileName().toString();
    }

    public String sha256() {
        return sha256;
    }

    public long size() {
        return size;
    }

    /** The SHA-256 of a file, as 64 lower-case hex digits. */
    public static String sha256(Path file) throws IOException {
        MessageDigest digest = newDigest();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[64 * 1024];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** A new SHA-256 digest. */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * The job class: {@code requested} if set, else the manifest's, else the only job in the jar.
     *
     * @param loader loads the jar's classes (a {@link JobClassLoader} over it)
     * @throws JobJarException when there is none, several, or the class is not a job
     */
    public String jobClass(ClassLoader loader, String requested) {
        if (requested != null && !requested.isBlank()) {
            return checkJob(loader, requested, "--class");
        }
        Manifest manifest = manifest();
        if (manifest != null) {
            Attributes main = manifest.getMainAttributes();
            String named = main.getValue(MANIFEST_JOB_CLASS);
            if (named != null && !named.isBlank()) {
                return checkJob(loader, named.trim(), "its manifest's " + MANIFEST_JOB_CLASS);
            }
            String mainClass = main.getValue(Attributes.Name.MAIN_CLASS);
            if (mainClass != null && isJob(loader, mainClass.trim())) {
                return mainClass.trim();
            }
        }
        List<String> jobs = new ArrayList<>();
        for (String name : classNames()) {
            if (isJob(loader, name)) {
                jobs.add(name);
            }
        }
        if (jobs.isEmpty()) {
            throw new JobJarException("jar " + fileName() + " holds no job: no public class in it implements "
                    + DuraflowJob.class.getName() + " with a public no-argument constructor");
        }
        if (jobs.size() > 1) {
            throw new JobJarException("jar " + fileName() + " holds " + jobs.size() + " jobs (" + String.join(", ", jobs)
                    + "): choose one with --class, or name it in the manifest's " + MANIFEST_JOB_CLASS);
        }
        return jobs.get(0);
    }

    private String checkJob(ClassLoader loader, String name, String from) {
        Class<?> type;
        try {
            type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new JobJarException("class " + name + " (from " + from + ") is not in jar " + fileName()
                    + " or cannot be loaded: " + e, e);
        }
        if (!DuraflowJob.class.isAssignableFrom(type)) {
            throw new JobJarException("class " + name + " (from " + from + ") in jar " + fileName()
                    + " is not a job: it must implement " + DuraflowJob.class.getName());
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
            throw new JobJarException("job class " + name + " (from " + from + ") in jar " + fileName()
                    + " cannot be created: it must be a public class that is not abstract");
        }
        try {
            type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new JobJarException("job class " + name + " (from " + from + ") in jar " + fileName()
                    + " needs a public no-argument constructor", e);
        }
        return name;
    }

    private static boolean isJob(ClassLoader loader, String name) {
        try {
            Class<?> type = Class.forName(name, false, loader);
            if (!DuraflowJob.class.isAssignableFrom(type) || type.isInterface()
                    || Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
                return false;
            }
            type.getConstructor();
            return true;
        } catch (ClassNotFoundException | LinkageError | NoSuchMethodException e) {
            return false;
        }
    }

    private Manifest manifest() {
        try (JarFile jar = new JarFile(path.toFile())) {
            return jar.getManifest();
        } catch (IOException e) {
            throw new JobJarException("jar " + fileName() + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** The top-level and nested classes in the jar, by binary name; not module-info or multi-release copies. */
    private List<String> classNames() {
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(path.toFile())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                String entry = entries.nextElement().getName();
                if (entry.endsWith(".class") && !entry.startsWith("META-INF/") && !entry.endsWith("module-info.class")
                        && !entry.endsWith("package-info.class")) {
                    names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
                }
            }
        } catch (IOException e) {
            throw new JobJarException("jar " + fileName() + " cannot be read: " + e.getMessage(), e);
        }
        return names;
    }
}

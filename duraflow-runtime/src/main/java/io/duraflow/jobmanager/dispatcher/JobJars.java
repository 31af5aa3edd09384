package io.duraflow.jobmanager.dispatcher;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.jobstore.JobJarRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jars of jobs submitted from one ({@code duraflow run app.jar}) on this JobManager. The
 * durable copy is in the job's directory in the high-availability storage
 * ({@code artifacts/<sha256>.jar}, see {@link JobDirectories}), written before the job is
 * accepted and deleted with that directory by the job's cleanup, never before; every leader reads
 * it from there. Classes are loaded from a local copy, checked against the SHA-256 the job was
 * submitted with, by one {@link JobClassLoader} per job, closed (and the local copy deleted) when
 * the job no longer runs here.
 *
 * <p>Thread-safe: called on I/O and user-code threads (storing, building plans) and gRPC threads
 * (serving TaskManagers).
 */
public final class JobJars {
    private static final Logger LOG = LoggerFactory.getLogger(JobJars.class);

    private final JobDirectories directories;
    private final Path localDirectory;
    /** By job: its class loader and the local copy it reads. */
    private final Map<String, Loaded> loaders = new HashMap<>();

    private record Loaded(JobClassLoader loader, Path local) {}

    /** @param localDirectory where this JobManager keeps the local copies it loads classes from */
    public JobJars(JobDirectories directories, Path localDirectory) {
        this.directories = directories;
        this.localDirectory = localDirectory;
    }

    /** The durable copy of a job's jar. */
    public FsPath stored(String jobId, String sha256) {
        return directories.artifactDirectory(jobId).resolve(sha256 + ".jar");
    }

    /**
     * Stores an uploaded jar, already checked against {@code jar}'s hash, as the job's durable copy,
     * and keeps it as the local copy to load classes from. Blocking I/O.
     */
    public void store(String jobId, JobJarRef jar, Path upload) throws IOException {
        FileSystem fs = directories.fileSystem();
        FsPath target = stored(jobId, jar.sha256());
        FsPath partial = target.parent().resolve(jar.sha256() + ".jar.partial");
        fs.mkdirs(target.parent());
        try (FsOutputStream out = fs.create(partial, WriteMode.OVERWRITE)) {
            Files.copy(upload, out);
            out.sync();
        }
        fs.rename(partial, target, WriteMode.OVERWRITE);
        Files.createDirectories(localDirectory);
        Files.move(upload, localCopy(jobId, jar), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The job's class loader, from its local copy, fetched from the durable copy first if this JobManager has none. */
    public synchronized JobClassLoader loader(String jobId, JobJarRef jar) {
        Loaded loaded = loaders.get(jobId);
        if (loaded == null) {
            Path local = localCopy(jobId, jar);
            try {
                if (!Files.exists(local)) {
                    fetch(jobId, jar, local);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the jar " + jar.fileName() + " of job " + jobId + " from "
                        + stored(jobId, jar.sha256()) + ": " + e.getMessage(), e);
            }
            loaded = new Loaded(new JobClassLoader(jobId, local, JobJars.class.getClassLoader()), local);
            loaders.put(jobId, loaded);
        }
        return loaded.loader();
    }

    /** Copies the durable copy to {@code local}, checking its hash on the way. */
    private void fetch(String jobId, JobJarRef jar, Path local) throws IOException {
        Files.createDirectories(localDirectory);
        Path partial = local.resolveSibling(local.getFileName() + ".partial");
        MessageDigest digest = JobJar.newDigest();
        FsPath stored = stored(jobId, jar.sha256());
        try (InputStream in = directories.fileSystem().open(stored);
                OutputStream out = Files.newOutputStream(partial)) {
            byte[] buffer = new byte[64 * 1024];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
                out.write(buffer, 0, n);
            }
        }
        String found = HexFormat.of().formatHex(digest.digest());
        if (!found.equals(jar.sha256())) {
            Files.deleteIfExists(partial);
            throw new JobJar.JobJarException("the stored copy of jar " + jar.fileName() + " of job " + jobId + " ("
                    + stored + ") does not match its SHA-256: expected " + jar.sha256() + ", found " + found);
        }
        Files.move(partial, local, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The durable copy of a job's jar, to send to a TaskManager. */
    public InputStream open(String jobId, String sha256) throws IOException {
        return directories.fileSystem().open(stored(jobId, sha256));
    }

    /** The job no longer runs here: its class loader closes and its local copy goes. */
    public void release(String jobId) {
        Loaded loaded;
        synchronized (this) {
            loaded = loaders.remove(jobId);
        }
        if (loaded == null) {
            return;
        }
        try {
            loaded.loader().close();
            Files.deleteIfExists(loaded.local());
        } catch (IOException e) {
            LOG.warn("Job {}: cannot close its class loader or delete its local jar: {}", jobId, e.toString());
        }
    }

    /** A submission that was not accepted leaves nothing stored. Blocking I/O. */
    public void discard(String jobId, JobJarRef jar) {
        release(jobId);
        try {
            directories.fileSystem().deleteRecursively(directories.artifactDirectory(jobId));
            Files.deleteIfExists(localCopy(jobId, jar));
        } catch (IOException e) {
            LOG.warn("Job {}: cannot delete the jar of its refused submission: {}", jobId, e.toString());
        }
    }

    private Path localCopy(String jobId, JobJarRef jar) {
        return localDirectory.resolve(jobId + "-" + jar.sha256() + ".jar");
    }
}

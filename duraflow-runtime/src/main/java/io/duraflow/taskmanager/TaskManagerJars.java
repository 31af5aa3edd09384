package io.duraflow.taskmanager;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.FetchArtifactRequest;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.TaskDeployment;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jars of the jobs this TaskManager runs that were submitted from one: fetched once from the
 * leader (which reads the job's stored copy), checked against the deployment's SHA-256, cached in
 * the data directory under that hash, and loaded by one {@link JobClassLoader} per job, closed when
 * the job ended here ({@link #release}); the cached file goes when no job here uses it.
 *
 * <p>Thread-safe; {@link #loader} blocks while it fetches, so it runs on plan-build threads.
 */
final class TaskManagerJars {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerJars.class);

    private final Path directory;
    private final long fetchTimeoutMs;
    /** By job: its loader and the hash of the jar it reads. */
    private final Map<String, Loaded> loaders = new HashMap<>();

    private record Loaded(JobClassLoader loader, String sha256) {}

    TaskManagerJars(Path directory, long fetchTimeoutMs) {
        this.directory = directory;
        this.fetchTimeoutMs = fetchTimeoutMs;
    }

    /**
     * The class loader of the deployment's job: the TaskManager's own for a job on the class
     * path, else one over the job's jar, fetched through {@code client} if not cached here.
     */
    synchronized ClassLoader loader(TaskDeployment deployment, JobManagerClient client) throws IOException {
        if (!deployment.hasArtifact()) {
            return TaskManagerJars.class.getClassLoader();
        }
        String jobId = deployment.getAttempt().getJobId();
        JobArtifact jar = deployment.getArtifact();
        Loaded loaded = loaders.get(jobId);
        if (loaded != null && loaded.sha256().equals(jar.getSha256())) {
            return loaded.loader();
        }
        Path cached = directory.resolve(jar.getSha256() + ".jar");
        if (!Files.exists(cached)) {
            fetch(jobId, jar, client, cached);
        }
        JobClassLoader loader = new JobClassLoader(jobId, cached, TaskManagerJars.class.getClassLoader());
        if (loaded != null) {
            close(jobId, loaded);
        }
        loaders.put(jobId, new Loaded(loader, jar.getSha256()));
        return loader;
    }

    /** The class loader of a job whose plan was built here, or null. */
    synchronized ClassLoader loaded(String jobId) {
        Loaded loaded = loaders.get(jobId);
        return loaded == null ? null : loaded.loader();
    }

    private void fetch(String jobId, JobArtifact jar, JobManagerClient client, Path cached) throws IOException {
        if (client == null) {
            throw new IOException("no JobManager to fetch jar " + jar.getFileName() + " of job " + jobId + " from");
        }
        Files.createDirectories(directory);
        Path partial = Files.createTempFile(directory, jar.getSha256(), ".partial");
        long started = System.nanoTime();
        // Hashed as the bytes arrive, not read back afterwards: the check then costs no second pass
        // over the jar, and the hashing overlaps the wait for the next chunk.
        MessageDigest digest = JobJar.newDigest();
        try {
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(partial), digest)) {
                client.fetchArtifact(FetchArtifactRequest.newBuilder().setJobId(jobId).setSha256(jar.getSha256()).build(),
                        out, fetchTimeoutMs).get(fetchTimeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IOException("cannot fetch jar " + jar.getFileName() + " of job " + jobId + ": "
                        + Rpc.message(e.getCause()), e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("fetching jar " + jar.getFileName() + " of job " + jobId + " took longer than "
                        + fetchTimeoutMs + " ms", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while fetching jar " + jar.getFileName() + " of job " + jobId, e);
            }
            String found = HexFormat.of().formatHex(digest.digest());
            if (!found.equals(jar.getSha256())) {
                throw new IOException("jar " + jar.getFileName() + " of job " + jobId + " arrived with SHA-256 " + found
                        + ", not the " + jar.getSha256() + " it was submitted with");
            }
            Files.move(partial, cached, StandardCopyOption.REPLACE_EXISTING);
            LOG.info("Fetched jar {} of job {} ({} bytes) in {} ms", jar.getFileName(), jobId, Files.size(cached),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** The job ended here: its class loader closes, and its jar goes unless another job here uses it. */
    synchronized void release(String jobId) {
        Loaded loaded = loaders.remove(jobId);
        if (loaded != null) {
            close(jobId, loaded);
        }
    }

    private void close(String jobId, Loaded loaded) {
        try {
            loaded.loader().close();
            boolean used = loaders.values().stream().anyMatch(other -> other.sha256().equals(loaded.sha256()));
            if (!used) {
                Files.deleteIfExists(directory.resolve(loaded.sha256() + ".jar"));
            }
        } catch (IOException e) {
            LOG.warn("Job {}: cannot close its class loader or delete its jar: {}", jobId, e.toString());
        }
    }
}

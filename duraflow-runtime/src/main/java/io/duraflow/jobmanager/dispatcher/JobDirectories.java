package io.duraflow.jobmanager.dispatcher;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where each job's own durable data lives, on a {@link FileSystem}; cleanup deletes a job's
 * directory with everything in it:
 *
 * <pre>
 *   &lt;root&gt;/                 high-availability.storage-dir/&lt;cluster-id&gt;/jobs/
 *     &lt;jobId&gt;/
 *       job-events/         the job event log ({@link io.duraflow.jobmanager.events.JobEventLogFormat})
 *       artifacts/          the jar the job was submitted from, as {@code <sha256>.jar} ({@link JobJars})
 * </pre>
 *
 * @param fileSystem holds {@code root}
 * @param root the directory of the job directories
 */
public record JobDirectories(FileSystem fileSystem, FsPath root) {
    /** The event log of a job, under its job directory. */
    public static final String JOB_EVENTS_DIRECTORY = "job-events";
    /** A job's jar, under its job directory. */
    public static final String ARTIFACTS_DIRECTORY = "artifacts";

    public JobDirectories {
        Objects.requireNonNull(fileSystem, "fileSystem");
        Objects.requireNonNull(root, "root");
    }

    /** Job directories under a local directory. */
    public static JobDirectories local(Path root) {
        return new JobDirectories(LocalFileSystem.INSTANCE, FsPath.of(root));
    }

    /** The job's directory; the job id must be valid ({@link io.duraflow.jobstore.JobIds}). */
    public FsPath jobDirectory(String jobId) {
        return root.resolve(jobId);
    }

    /** The jars of a job, under its job directory. */
    public FsPath artifactDirectory(String jobId) {
        return jobDirectory(jobId).resolve(ARTIFACTS_DIRECTORY);
    }

    public FsPath eventLogDirectory(String jobId) {
        return jobDirectory(jobId).resolve(JOB_EVENTS_DIRECTORY);
    }
}

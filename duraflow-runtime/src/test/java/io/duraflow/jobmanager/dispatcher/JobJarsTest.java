package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.DuraflowJob;
import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.artifact.TestJobJars;
import io.duraflow.fs.FsPath;
import io.duraflow.jobstore.JobJarRef;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's jar stored in its HA directory and loaded from a local copy checked against its SHA-256. */
class JobJarsTest {
    private static final String JOB_ID = "job-1";
    private static final String JOB = "com.example.t.MyJob";
    private static final String HELPER = "com.example.t.Helper";

    @TempDir
    Path dir;

    private JobDirectories directories;
    private Path upload;
    private byte[] jarBytes;
    private JobJarRef ref;

    @BeforeEach
    void buildJar() throws IOException {
        directories = JobDirectories.local(dir.resolve("ha/jobs"));
        upload = TestJobJars.jar(dir.resolve("upload-123.jar")).job(JOB)
                .source(HELPER, TestJobJars.versionedSource(HELPER, "1")).build();
        jarBytes = Files.readAllBytes(upload);
        JobJar jar = JobJar.open(upload);
        ref = new JobJarRef(jar.sha256(), "app.jar", jar.size());
    }

    private JobJars jars(String local) {
        return new JobJars(directories, dir.resolve(local));
    }

    private Path stored() {
        return dir.resolve("ha/jobs").resolve(JOB_ID).resolve("artifacts").resolve(ref.sha256() + ".jar");
    }

    private static long files(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.count();
        }
    }

    @Test
    void aStoredJarIsInTheJobsArtifactDirectoryAndItsClassesLoad() throws Exception {
        JobJars jars = jars("local");

        jars.store(JOB_ID, ref, upload);

        assertThat(jars.stored(JOB_ID, ref.sha256())).isEqualTo(FsPath.of(stored()));
        assertThat(stored()).hasBinaryContent(jarBytes);
        assertThat(stored().resolveSibling(ref.sha256() + ".jar.partial")).doesNotExist();
        assertThat(upload).as("moved to the local copy").doesNotExist();
        JobClassLoader loader = jars.loader(JOB_ID, ref);
        Class<?> job = loader.loadClass(JOB);
        assertThat(job.getClassLoader()).isSameAs(loader);
        assertThat(DuraflowJob.class.isAssignableFrom(job)).isTrue();
        assertThat(jars.loader(JOB_ID, ref)).as("one loader per job").isSameAs(loader);
        try (InputStream in = jars.open(JOB_ID, ref.sha256())) {
            assertThat(in.readAllBytes()).isEqualTo(jarBytes);
        }
        jars.release(JOB_ID);
    }

    @Test
    void aNewLeaderLoadsFromTheStoredCopy() throws Exception {
        jars("old-leader").store(JOB_ID, ref, upload);
        JobJars newLeader = jars("new-leader");

        JobClassLoader loader = newLeader.loader(JOB_ID, ref);

        assertThat(loader.loadClass(JOB).getClassLoader()).isSameAs(loader);
        assertThat(dir.resolve("new-leader").resolve(JOB_ID + "-" + ref.sha256() + ".jar")).hasBinaryContent(jarBytes);
        assertThat(files(dir.resolve("new-leader"))).as("no partial copy left").isEqualTo(1);
        newLeader.release(JOB_ID);
    }

    @Test
    void aStoredCopyWhoseBytesChangedIsRefused() throws Exception {
        jars("old-leader").store(JOB_ID, ref, upload);
        byte[] changed = jarBytes.clone();
        changed[changed.length / 2] ^= 0x01;
        Files.write(stored(), changed);
        JobJars newLeader = jars("new-leader");

        assertThatThrownBy(() -> newLeader.loader(JOB_ID, ref)).isInstanceOf(JobJar.JobJarException.class)
                .hasMessageContaining("jar app.jar")
                .hasMessageContaining("job " + JOB_ID)
                .hasMessageContaining(FsPath.of(stored()).toString())
                .hasMessageContaining("does not match its SHA-256: expected " + ref.sha256() + ", found ");
        assertThat(files(dir.resolve("new-leader"))).as("neither a local copy nor a partial one").isZero();
        assertThatThrownBy(() -> newLeader.loader(JOB_ID, ref)).as("still refused: nothing was cached")
                .isInstanceOf(JobJar.JobJarException.class);
    }

    @Test
    void aMissingStoredCopyIsReportedWithTheJobAndTheJar() throws Exception {
        JobJars newLeader = jars("new-leader");

        assertThatThrownBy(() -> newLeader.loader(JOB_ID, ref)).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageStartingWith("cannot read the jar app.jar of job " + JOB_ID + " from " + FsPath.of(stored()));
    }

    @Test
    void releaseClosesTheLoaderAndDeletesTheLocalCopy() throws Exception {
        JobJars jars = jars("local");
        jars.store(JOB_ID, ref, upload);
        JobClassLoader loader = jars.loader(JOB_ID, ref);
        loader.loadClass(JOB);
        Path local = dir.resolve("local").resolve(JOB_ID + "-" + ref.sha256() + ".jar");
        assertThat(local).exists();

        jars.release(JOB_ID);

        assertThatThrownBy(() -> loader.loadClass(HELPER)).as("a class it had not loaded yet")
                .isInstanceOf(ClassNotFoundException.class);
        assertThat(local).doesNotExist();
        assertThat(stored()).as("the durable copy stays").hasBinaryContent(jarBytes);
        JobClassLoader again = jars.loader(JOB_ID, ref);
        assertThat(again).as("fetched again from the stored copy").isNotSameAs(loader);
        assertThat(again.loadClass(HELPER).getClassLoader()).isSameAs(again);
        jars.release(JOB_ID);
        jars.release(JOB_ID);
    }

    @Test
    void discardDeletesTheStoredCopy() throws Exception {
        JobJars jars = jars("local");
        jars.store(JOB_ID, ref, upload);
        JobClassLoader loader = jars.loader(JOB_ID, ref);
        jars.store("job-2", ref, Files.write(dir.resolve("upload-2.jar"), jarBytes));

        jars.discard(JOB_ID, ref);

        assertThat(stored()).doesNotExist();
        assertThat(dir.resolve("ha/jobs").resolve(JOB_ID).resolve("artifacts")).doesNotExist();
        assertThat(dir.resolve("local").resolve(JOB_ID + "-" + ref.sha256() + ".jar")).doesNotExist();
        assertThatThrownBy(() -> loader.loadClass(HELPER)).isInstanceOf(ClassNotFoundException.class);
        assertThat(dir.resolve("ha/jobs/job-2/artifacts").resolve(ref.sha256() + ".jar"))
                .as("another job's jar stays").hasBinaryContent(jarBytes);
    }

    @Test
    void discardWithoutALoaderDeletesTheStoredAndLocalCopies() throws Exception {
        JobJars jars = jars("local");
        jars.store(JOB_ID, ref, upload);

        jars.discard(JOB_ID, ref);

        assertThat(stored()).doesNotExist();
        assertThat(files(dir.resolve("local"))).isZero();
    }
}

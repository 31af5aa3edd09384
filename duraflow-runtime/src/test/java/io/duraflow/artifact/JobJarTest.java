package io.duraflow.artifact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.artifact.JobJar.JobJarException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checking a job's jar and finding the job class in it. */
class JobJarTest {
    private static final String A = "com.example.t.A";
    private static final String B = "com.example.t.B";

    @TempDir
    Path dir;

    private TestJobJars.Builder app() {
        return TestJobJars.jar(dir.resolve("app.jar"));
    }

    /** The job class of a jar, found with a job loader over it. */
    private static String jobClass(Path jar, String requested) throws Exception {
        try (JobClassLoader loader = new JobClassLoader("j1", jar, JobJarTest.class.getClassLoader())) {
            return JobJar.open(jar).jobClass(loader, requested);
        }
    }

    @Test
    void aMissingJarIsReported() {
        Path missing = dir.resolve("nope.jar");

        assertThatThrownBy(() -> JobJar.open(missing)).isInstanceOf(JobJarException.class)
                .hasMessage("jar " + missing + " does not exist: check the path");
    }

    @Test
    void aDirectoryIsNotAJar() throws Exception {
        Path directory = Files.createDirectory(dir.resolve("classes.jar"));

        assertThatThrownBy(() -> JobJar.open(directory)).isInstanceOf(JobJarException.class)
                .hasMessage("jar " + directory + " cannot be read: it is a directory");
    }

    @Test
    void aFileThatIsNotAZipIsNotAJar() throws Exception {
        Path text = Files.writeString(dir.resolve("app.jar"), "hello, not a zip file\n");

        assertThatThrownBy(() -> JobJar.open(text)).isInstanceOf(JobJarException.class)
                .hasMessageStartingWith(text + " is not a jar: ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aJarWithoutEntriesIsEmpty() throws Exception {
        Path empty = dir.resolve("empty.jar");
        try (OutputStream out = Files.newOutputStream(empty); JarOutputStream jar = new JarOutputStream(out)) {
            jar.finish();
        }

        assertThatThrownBy(() -> JobJar.open(empty)).isInstanceOf(JobJarException.class)
                .hasMessage(empty + " is not a job's jar: it is empty");
    }

    @Test
    void hashAndSizeAreThoseOfTheFile() throws Exception {
        Path jar = app().job(A).build();
        byte[] bytes = Files.readAllBytes(jar);

        JobJar opened = JobJar.open(jar);

        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        assertThat(opened.sha256()).isEqualTo(expected).matches("[0-9a-f]{64}");
        assertThat(opened.size()).isEqualTo(bytes.length);
        assertThat(opened.fileName()).isEqualTo("app.jar");
        assertThat(opened.path()).isEqualTo(jar);
        Path other = TestJobJars.jar(dir.resolve("other.jar")).job(B).build();
        assertThat(JobJar.open(other).sha256()).isNotEqualTo(expected);
    }

    @Test
    void theOnlyJobIsFound() throws Exception {
        Path jar = app().job(A).source("com.example.t.Util", TestJobJars.versionedSource("com.example.t.Util", "1"))
                .build();

        assertThat(jobClass(jar, null)).isEqualTo(A);
        assertThat(jobClass(jar, " ")).as("a blank --class is none").isEqualTo(A);
    }

    @Test
    void theManifestNamesTheJob() throws Exception {
        Path jar = app().job(A).job(B).manifest(JobJar.MANIFEST_JOB_CLASS, B).build();

        assertThat(jobClass(jar, null)).isEqualTo(B);
    }

    @Test
    void aMainClassThatIsAJobIsTheJob() throws Exception {
        Path jar = app().job(A).job(B).manifest("Main-Class", A).build();

        assertThat(jobClass(jar, null)).isEqualTo(A);
    }

    @Test
    void aMainClassThatIsNotAJobIsIgnored() throws Exception {
        String launcher = "com.example.t.Launcher";
        Path jar = app().job(B).source(launcher, TestJobJars.classSource(launcher, "",
                "public static void main(String[] args) {}")).manifest("Main-Class", launcher).build();

        assertThat(jobClass(jar, null)).isEqualTo(B);
    }

    @Test
    void theClassOptionOverridesTheManifest() throws Exception {
        Path jar = app().job(A).job(B).manifest(JobJar.MANIFEST_JOB_CLASS, B).manifest("Main-Class", B).build();

        assertThat(jobClass(jar, A)).isEqualTo(A);
    }

    @Test
    void aJarWithoutAJobIsReported() throws Exception {
        Path jar = app().source("com.example.t.Util", TestJobJars.versionedSource("com.example.t.Util", "1")).build();

        assertThatThrownBy(() -> jobClass(jar, null)).isInstanceOf(JobJarException.class)
                .hasMessageStartingWith("jar app.jar holds no job: ")
                .hasMessageContaining("io.duraflow.api.DuraflowJob");
    }

    @Test
    void severalJobsAreListed() throws Exception {
        Path jar = app().job(B).job(A).build();

        assertThatThrownBy(() -> jobClass(jar, null)).isInstanceOf(JobJarException.class)
                .hasMessageStartingWith("jar app.jar holds 2 jobs (" + A + ", " + B + "): choose one with --class")
                .hasMessageContaining(JobJar.MANIFEST_JOB_CLASS);
    }

    @Test
    void aRequestedClassThatIsNotInTheJarIsReported() throws Exception {
        Path jar = app().job(A).build();

        assertThatThrownBy(() -> jobClass(jar, "com.example.t.Missing")).isInstanceOf(JobJarException.class)
                .hasMessageStartingWith("class com.example.t.Missing (from --class) is not in jar app.jar")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aManifestClassThatIsNotInTheJarIsReported() throws Exception {
        Path jar = app().job(A).manifest(JobJar.MANIFEST_JOB_CLASS, "com.example.t.Gone").build();

        assertThatThrownBy(() -> jobClass(jar, null)).isInstanceOf(JobJarException.class)
                .hasMessageStartingWith("class com.example.t.Gone (from its manifest's Duraflow-Job-Class) is not in"
                        + " jar app.jar");
    }

    @Test
    void aRequestedClassThatIsNotAJobIsReported() throws Exception {
        String util = "com.example.t.Util";
        Path jar = app().job(A).source(util, TestJobJars.versionedSource(util, "1")).build();

        assertThatThrownBy(() -> jobClass(jar, util)).isInstanceOf(JobJarException.class)
                .hasMessage("class " + util + " (from --class) in jar app.jar is not a job: it must implement"
                        + " io.duraflow.api.DuraflowJob");
    }

    @Test
    void aRequestedJobThatCannotBeCreatedIsReportedBeforeAnythingIsSent() throws Exception {
        String noConstructor = "com.example.t.NoConstructor";
        Path jar = app().job(A).source(noConstructor, """
                package com.example.t;
                public final class NoConstructor implements io.duraflow.api.DuraflowJob {
                    public NoConstructor(String needed) {}
                    @Override public void build(io.duraflow.api.JobBuilder job, io.duraflow.api.JobParameters p) {}
                }
                """).build();

        assertThatThrownBy(() -> jobClass(jar, noConstructor)).isInstanceOf(JobJarException.class)
                .hasMessage("job class " + noConstructor + " (from --class) in jar app.jar needs a public"
                        + " no-argument constructor");
    }

    @Test
    void abstractNonPublicAndConstructorlessJobsAreNotCounted() throws Exception {
        String body = """
                @Override
                public void build(io.duraflow.api.JobBuilder job, io.duraflow.api.JobParameters params) {}
                """;
        Path jar = app().job(A)
                .source("com.example.t.Abstract", "package com.example.t;\npublic abstract class Abstract"
                        + " implements io.duraflow.api.DuraflowJob {}\n")
                .source("com.example.t.WithArgs", TestJobJars.classSource("com.example.t.WithArgs",
                        "implements io.duraflow.api.DuraflowJob", body + "public WithArgs(int n) {}"))
                .source("com.example.t.PrivateCtor", TestJobJars.classSource("com.example.t.PrivateCtor",
                        "implements io.duraflow.api.DuraflowJob", body + "private PrivateCtor() {}"))
                .source("com.example.t.Hidden", "package com.example.t;\nclass Hidden implements"
                        + " io.duraflow.api.DuraflowJob {\n" + body + "}\n")
                .source("com.example.t.Api", "package com.example.t;\npublic interface Api extends"
                        + " io.duraflow.api.DuraflowJob {}\n")
                .build();

        assertThat(jobClass(jar, null)).isEqualTo(A);
    }

    @Test
    void aPublicNestedJobIsFoundByItsBinaryName() throws Exception {
        String outer = "com.example.t.Jobs";
        Path jar = app().source(outer, TestJobJars.classSource(outer, "", """
                public static final class Inner implements io.duraflow.api.DuraflowJob {
                    @Override
                    public void build(io.duraflow.api.JobBuilder job, io.duraflow.api.JobParameters params) {}
                }
                """)).build();

        assertThat(jobClass(jar, null)).isEqualTo(outer + "$Inner");
    }
}

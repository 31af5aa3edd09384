package io.duraflow.artifact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.duraflow.api.DuraflowJob;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Child-first loading from a job's jar, except for the parent-first prefixes. */
class JobClassLoaderTest {
    private static final String SHADOW = "com.example.t.Shadow";

    @TempDir
    Path dir;

    private static String version(Class<?> type) throws Exception {
        return (String) type.getMethod("version").invoke(null);
    }

    private static String read(URL url) throws Exception {
        try (InputStream in = url.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A parent loader over a jar with its own Shadow (version "parent") and resource. */
    private URLClassLoader parent() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("parent.jar"))
                .source(SHADOW, TestJobJars.versionedSource(SHADOW, "parent"))
                .source("com.example.t.OnlyInParent", TestJobJars.versionedSource("com.example.t.OnlyInParent", "p"))
                .entry("com/example/t/data.txt", "from the parent")
                .build();
        return new URLClassLoader(new URL[] {jar.toUri().toURL()}, JobClassLoaderTest.class.getClassLoader());
    }

    @Test
    void aClassInTheJarWinsOverTheParentsClassOfTheSameName() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar")).source(SHADOW, TestJobJars.versionedSource(SHADOW, "job"))
                .build();
        try (URLClassLoader parent = parent(); JobClassLoader loader = new JobClassLoader("j1", jar, parent)) {
            assertThat(version(parent.loadClass(SHADOW))).as("the parent does have its own").isEqualTo("parent");

            Class<?> shadow = loader.loadClass(SHADOW);

            assertThat(version(shadow)).isEqualTo("job");
            assertThat(shadow.getClassLoader()).isSameAs(loader);
            assertThat(Class.forName(SHADOW, true, loader)).isSameAs(shadow);
        }
    }

    @Test
    void aClassThatIsNotInTheJarComesFromTheParent() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar")).source(SHADOW, TestJobJars.versionedSource(SHADOW, "job"))
                .build();
        try (URLClassLoader parent = parent(); JobClassLoader loader = new JobClassLoader("j1", jar, parent)) {
            Class<?> type = loader.loadClass("com.example.t.OnlyInParent");

            assertThat(type.getClassLoader()).isSameAs(parent);
            assertThatThrownBy(() -> loader.loadClass("com.example.t.Nowhere"))
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void theJobApiComesFromTheParentEvenIfTheJarHasItsOwn() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar"))
                .source(DuraflowJob.class.getName(), """
                        package io.duraflow.api;

                        public interface DuraflowJob {
                            void build(JobBuilder job, JobParameters params);
                        }
                        """)
                .job("com.example.t.MyJob")
                .build();
        try (JobClassLoader loader = new JobClassLoader("j1", jar, getClass().getClassLoader())) {
            assertThat(loader.findResource("io/duraflow/api/DuraflowJob.class")).as("the jar has its own copy")
                    .isNotNull();

            assertThat(loader.loadClass(DuraflowJob.class.getName())).isSameAs(DuraflowJob.class);
            assertThat(Class.forName(DuraflowJob.class.getName(), false, loader)).isSameAs(DuraflowJob.class);
            Class<?> job = loader.loadClass("com.example.t.MyJob");
            assertThat(job.getClassLoader()).isSameAs(loader);
            assertThat(DuraflowJob.class.isAssignableFrom(job)).as("the job implements the engine's interface")
                    .isTrue();
        }
    }

    @Test
    void jdkAndLoggingClassesComeFromTheParentEvenIfTheJarHasThem() throws Exception {
        byte[] bogus = {(byte) 0xCA, (byte) 0xFE, 1, 2};
        Path jar = TestJobJars.jar(dir.resolve("job.jar")).entry("java/lang/String.class", bogus)
                .entry("javax/tools/JavaCompiler.class", bogus).entry("org/slf4j/Logger.class", bogus).build();
        try (JobClassLoader loader = new JobClassLoader("j1", jar, getClass().getClassLoader())) {
            // child-first would define the jar's bytes: a ClassFormatError or SecurityException
            assertThat(loader.loadClass("java.lang.String")).isSameAs(String.class);
            assertThat(loader.loadClass("javax.tools.JavaCompiler")).isSameAs(javax.tools.JavaCompiler.class);
            assertThat(loader.loadClass("org.slf4j.Logger")).isSameAs(org.slf4j.Logger.class);
        }
    }

    /**
     * A parent-first name the process lacks comes from the jar, after the parent was asked (as
     * Flink's parent-first patterns): a job may bring javax.* or io.duraflow.* classes the
     * process does not have, never replace one it has; classes and resources alike.
     */
    @Test
    void parentFirstNamesTheParentLacksComeFromTheJarAfterTheParentWasAsked() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar"))
                .source("io.duraflow.api.Fake", TestJobJars.versionedSource("io.duraflow.api.Fake", "fake"))
                .entry("io/duraflow/only-in-the-jar.txt", "x").build();
        try (JobClassLoader loader = new JobClassLoader("j1", jar, getClass().getClassLoader())) {
            assertThat(Collections.list(loader.getResources("io/duraflow/only-in-the-jar.txt"))).hasSize(1);
            assertThat(loader.getResource("io/duraflow/only-in-the-jar.txt")).isNotNull();
            assertThat(loader.loadClass("io.duraflow.api.Fake").getClassLoader()).isSameAs(loader);
        }
    }

    @Test
    void twoLoadersOverTwoJarsGiveTwoDifferentClasses() throws Exception {
        Path one = TestJobJars.jar(dir.resolve("one.jar")).source(SHADOW, TestJobJars.versionedSource(SHADOW, "1"))
                .build();
        Path two = TestJobJars.jar(dir.resolve("two.jar")).source(SHADOW, TestJobJars.versionedSource(SHADOW, "2"))
                .build();
        try (JobClassLoader first = new JobClassLoader("j1", one, getClass().getClassLoader());
                JobClassLoader second = new JobClassLoader("j2", two, getClass().getClassLoader())) {
            Class<?> a = first.loadClass(SHADOW);
            Class<?> b = second.loadClass(SHADOW);

            assertThat(a).isNotSameAs(b);
            assertThat(version(a)).isEqualTo("1");
            assertThat(version(b)).isEqualTo("2");
        }
    }

    @Test
    void resourcesInTheJarComeFirst() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar")).entry("com/example/t/data.txt", "from the job")
                .entry("io/duraflow/api/DuraflowJob.class", "not a class").build();
        try (URLClassLoader parent = parent(); JobClassLoader loader = new JobClassLoader("j1", jar, parent)) {
            URL own = loader.getResource("com/example/t/data.txt");

            assertThat(read(own)).isEqualTo("from the job");
            assertThat(own.toString()).contains("job.jar");
            assertThat(Collections.list(loader.getResources("com/example/t/data.txt"))).extracting(JobClassLoaderTest::read)
                    .containsExactly("from the job", "from the parent");
            URL api = loader.getResource("io/duraflow/api/DuraflowJob.class");
            assertThat(api).as("parent-first resources come from the parent")
                    .isEqualTo(DuraflowJob.class.getClassLoader().getResource("io/duraflow/api/DuraflowJob.class"));
            assertThat(Collections.list(loader.getResources("io/duraflow/api/DuraflowJob.class")))
                    .as("the parent's first, the jar's after").first().isEqualTo(api);
        }
    }

    @Test
    void parentFirstPrefixesMatchDottedAndSlashedNames() {
        assertThat(JobClassLoader.parentFirst("io.duraflow.api.DuraflowJob")).isTrue();
        assertThat(JobClassLoader.parentFirst("io/duraflow/api/x.txt")).isTrue();
        assertThat(JobClassLoader.parentFirst("java.lang.String")).isTrue();
        assertThat(JobClassLoader.parentFirst("io.duraflowx.Thing")).isFalse();
        assertThat(JobClassLoader.parentFirst("com.example.t.Shadow")).isFalse();
        assertThat(JobClassLoader.parentFirst("javafoo.Bar")).isFalse();
    }
}

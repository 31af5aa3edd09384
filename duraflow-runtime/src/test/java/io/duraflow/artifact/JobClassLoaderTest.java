package io.duraflow.artifact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.DuraflowJob;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
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
                .source("io.duraflow.api.Fake", TestJobJars.versionedSource("io.duraflow.api.Fake", "fake"))
                .job("com.example.t.MyJob")
                .build();
        try (JobClassLoader loader = new JobClassLoader("j1", jar, getClass().getClassLoader())) {
            assertThat(loader.findResource("io/duraflow/api/DuraflowJob.class")).as("the jar has its own copy")
                    .isNotNull();

            assertThat(loader.loadClass(DuraflowJob.class.getName())).isSameAs(DuraflowJob.class);
            assertThatThrownBy(() -> loader.loadClass("io.duraflow.api.Fake"))
                    .as("io.duraflow. names never come from the jar").isInstanceOf(ClassNotFoundException.class);
            Class<?> job = loader.loadClass("com.example.t.MyJob");
            assertThat(job.getClassLoader()).isSameAs(loader);
            assertThat(DuraflowJob.class.isAssignableFrom(job)).as("the job implements the engine's interface")
                    .isTrue();
        }
    }

    @Test
    void jdkNamesNeverComeFromTheJar() throws Exception {
        Path jar = TestJobJars.jar(dir.resolve("job.jar"))
                .entry("java/util/Shadowed.class", new byte[] {(byte) 0xCA, (byte) 0xFE, 1, 2})
                .entry("javax/t/Shadowed.class", new byte[] {(byte) 0xCA, (byte) 0xFE, 1, 2})
                .entry("org/slf4j/Shadowed.class", new byte[] {(byte) 0xCA, (byte) 0xFE, 1, 2})
                .build();
        try (JobClassLoader loader = new JobClassLoader("j1", jar, getClass().getClassLoader())) {
            // child-first would try to define the jar's bytes and fail with a ClassFormatError or SecurityException
            for (String name : List.of("java.util.Shadowed", "javax.t.Shadowed", "org.slf4j.Shadowed")) {
                assertThatThrownBy(() -> loader.loadClass(name)).as(name).isInstanceOf(ClassNotFoundException.class);
            }
            assertThat(loader.loadClass("java.lang.String")).isSameAs(String.class);
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
                    .noneMatch(url -> url.toString().contains("job.jar"));
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

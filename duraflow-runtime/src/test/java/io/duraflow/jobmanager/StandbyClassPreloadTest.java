package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a standby JobManager loads ahead of a take-over, and that it stops once it leads. */
class StandbyClassPreloadTest {
    @TempDir
    Path dir;

    private static final List<String> ENTRIES = List.of("io/duraflow/jobmanager/dispatcher/Dispatcher.class",
            "io/duraflow/jobmanager/dispatcher/Dispatcher$Services.class", "io/duraflow/taskmanager/TaskExecutor.class",
            "io/duraflow/rest/index.html", "org/other/Library.class", "module-info.class",
            "META-INF/MANIFEST.MF");

    @Test
    void aJarListsDuraflowClassesWithoutTheTaskManagersOrAnythingElse() throws Exception {
        Path jar = dir.resolve("runtime.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String entry : ENTRIES) {
                out.putNextEntry(new JarEntry(entry));
                out.closeEntry();
            }
        }

        assertThat(StandbyClassPreload.classNames(jar)).containsExactly("io.duraflow.jobmanager.dispatcher.Dispatcher",
                "io.duraflow.jobmanager.dispatcher.Dispatcher$Services");
    }

    @Test
    void aClassDirectoryIsListedTheSameWay() throws Exception {
        Path classes = dir.resolve("classes");
        for (String entry : ENTRIES) {
            Path file = classes.resolve(entry);
            Files.createDirectories(file.getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(0);
            }
        }

        assertThat(StandbyClassPreload.classNames(classes)).containsExactlyInAnyOrder(
                "io.duraflow.jobmanager.dispatcher.Dispatcher", "io.duraflow.jobmanager.dispatcher.Dispatcher$Services");
    }

    @Test
    void theJobManagersOwnCodeSourcesAreFoundAndLoadedUntilItIsElected() {
        List<Path> roots = StandbyClassPreload.codeSources();
        assertThat(roots).hasSize(2);

        // Elected after the third class: nothing more is loaded.
        AtomicInteger asked = new AtomicInteger();
        int loaded = StandbyClassPreload.preload(roots, getClass().getClassLoader(), () -> asked.incrementAndGet() <= 3);

        assertThat(loaded).isEqualTo(3);
        assertThat(asked).hasValue(4);
    }

    @Test
    void aMissingCodeSourceOrAClassThatDoesNotLoadIsSkipped() throws Exception {
        Path missing = dir.resolve("gone.jar");
        Path classes = dir.resolve("broken");
        Path broken = classes.resolve("io/duraflow/jobmanager/Broken.class");
        Files.createDirectories(broken.getParent());
        Files.write(broken, new byte[] {0, 1, 2, 3});

        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            assertThat(StandbyClassPreload.preload(List.of(missing, classes), loader, () -> true)).isZero();
        }
    }
}

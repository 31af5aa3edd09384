package io.duraflow.jobmanager;

import io.duraflow.config.Configuration;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads Duraflow's own classes into a standby JobManager while it stands by, so that a take-over
 * does not load them. A standby that becomes the leader after a crash runs code it never ran:
 * recovery, the adoption planner, the job master, the checkpoint coordinator. Measured in the
 * batch-failover demo, the new leader loaded about 750 classes between its election and the
 * adoption of the kept tasks, while those tasks kept both cores busy; that was most of the 1.4-1.6
 * s from election to take-over. With the classes loaded ahead it was about 0.8 s.
 *
 * <p>Classes are loaded, not initialized (no static initializer runs), in the order the jar lists
 * them, on one daemon thread, and only while the JobManager stands by: it stops
 * before the next class once {@code standingBy} says otherwise, so a leader never competes with
 * it. The TaskManager's packages are left out. Best effort: a class that does not load is
 * skipped, and a code source that cannot be read is logged at DEBUG.
 */
final class StandbyClassPreload {
    private static final Logger LOG = LoggerFactory.getLogger(StandbyClassPreload.class);
    /** Left out: code only a TaskManager runs. */
    private static final List<String> SKIPPED = List.of("io/duraflow/taskmanager/");

    private StandbyClassPreload() {}

    /** Where the JobManager's own classes come from: the runtime's and the core's code sources. */
    static List<Path> codeSources() {
        List<Path> roots = new ArrayList<>();
        for (Class<?> anchor : List.of(JobManagerRunner.class, Configuration.class)) {
            CodeSource source = anchor.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null
                    || !"file".equals(source.getLocation().getProtocol())) {
                continue;  // e.g. a jar inside a jar: nothing to list cheaply
            }
            try {
                Path root = Path.of(source.getLocation().toURI());
                if (!roots.contains(root)) {
                    roots.add(root);
                }
            } catch (URISyntaxException | RuntimeException e) {
                LOG.debug("Not preloading classes from {}: {}", source.getLocation(), e.toString());
            }
        }
        return roots;
    }

    /**
     * Loads every Duraflow class found under {@code roots} (jars or class directories) through
     * {@code loader} while {@code go} is true.
     *
     * @return how many classes were loaded
     */
    static int preload(List<Path> roots, ClassLoader loader, BooleanSupplier go) {
        int loaded = 0;
        for (Path root : roots) {
            List<String> names;
            try {
                names = classNames(root);
            } catch (IOException | RuntimeException e) {
                LOG.debug("Not preloading classes from {}: {}", root, e.toString());
                continue;
            }
            for (String name : names) {
                if (!go.getAsBoolean()) {
                    return loaded;
                }
                try {
                    Class.forName(name, false, loader);
                    loaded++;
                } catch (ClassNotFoundException | LinkageError e) {
                    LOG.trace("Not preloaded: {} ({})", name, e.toString());
                }
            }
        }
        return loaded;
    }

    /** The binary names of the Duraflow classes in a jar or a class directory, TaskManager code left out. */
    static List<String> classNames(Path root) throws IOException {
        List<String> paths = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile)
                        .forEach(file -> paths.add(root.relativize(file).toString().replace(root.getFileSystem()
                                .getSeparator(), "/")));
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                    paths.add(entries.nextElement().getName());
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (String path : paths) {
            if (path.startsWith("io/duraflow/") && path.endsWith(".class") && !path.endsWith("module-info.class")
                    && SKIPPED.stream().noneMatch(path::startsWith)) {
                names.add(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
            }
        }
        return names;
    }
}

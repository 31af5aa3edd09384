package io.duraflow.artifact;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of one job's jar on one process: classes and resources come from the jar
 * first (child-first), so a job can bring its own versions of libraries, except those whose names
 * start with a {@linkplain #PARENT_FIRST parent-first prefix}: the JDK, Duraflow itself (the job API
 * the job was compiled against, which the engine's classes must share with it) and SLF4J (one
 * logging backend per process). Those come from the process's class path, and from the jar only
 * when the process has no such class or resource (a jar may bring a {@code javax.*} library the
 * JDK lacks; it can never replace one the process has), as Flink's parent-first patterns. Closed
 * when the job ends on the process, which lets its classes be collected.
 */
public final class JobClassLoader extends URLClassLoader {
    /** Names loaded from the process's class path first (as Flink's classloader.parent-first-patterns). */
    public static final List<String> PARENT_FIRST = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.",
            "org.xml.", "io.duraflow.", "org.slf4j.", "ch.qos.logback.");

    static {
        ClassLoader.registerAsParallelCapable();
    }

    private final String jobId;

    public JobClassLoader(String jobId, Path jar, ClassLoader parent) {
        super("job-" + jobId, new URL[] {url(jar)}, parent);
        this.jobId = jobId;
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("cannot load classes from " + jar + ": " + e.getMessage(), e);
        }
    }

    /** Whether a class or resource of this name comes from the parent. */
    static boolean parentFirst(String name) {
        String dotted = name.replace('/', '.');
        for (String prefix : PARENT_FIRST) {
            if (dotted.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (parentFirst(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> type = findLoadedClass(name);
            if (type == null) {
                try {
                    type = findClass(name);
                } catch (ClassNotFoundException notInTheJar) {
                    return super.loadClass(name, resolve);
                }
            }
            if (resolve) {
                resolveClass(type);
            }
            return type;
        }
    }

    @Override
    public URL getResource(String name) {
        if (parentFirst(name)) {
            return super.getResource(name);
        }
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> own = Collections.list(findResources(name));
        ClassLoader parent = getParent();
        List<URL> inherited = parent == null ? List.of() : Collections.list(parent.getResources(name));
        List<URL> all = new ArrayList<>(parentFirst(name) ? inherited : own);
        all.addAll(parentFirst(name) ? own : inherited);
        return Collections.enumeration(all);
    }

    @Override
    public String toString() {
        return "JobClassLoader[" + jobId + "]";
    }
}

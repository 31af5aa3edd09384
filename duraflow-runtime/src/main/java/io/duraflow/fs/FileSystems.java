package io.duraflow.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks the {@link FileSystem} for a {@link FsPath} by its scheme: {@code file} (and so every
 * plain path) is the {@link LocalFileSystem}; other schemes come from {@link FileSystemFactory}
 * implementations on the class path. File systems are created once per scheme and authority and
 * shared.
 */
public final class FileSystems {
    /** By scheme; the local one first, so no factory can replace it. */
    private static final Map<String, FileSystemFactory> FACTORIES = loadFactories();
    /** By {@code scheme://authority/}. */
    private static final Map<URI, FileSystem> CREATED = new ConcurrentHashMap<>();

    private FileSystems() {
    }

    /**
     * The file system that holds {@code path}.
     *
     * @throws UnsupportedFileSystemException if no file system serves its scheme
     * @throws UncheckedIOException if the factory fails to create it
     */
    public static FileSystem get(FsPath path) {
        Objects.requireNonNull(path, "path");
        if (path.isLocal()) {
            return LocalFileSystem.INSTANCE;
        }
        FileSystemFactory factory = FACTORIES.get(path.scheme());
        if (factory == null) {
            throw new UnsupportedFileSystemException(path);
        }
        URI root = new FsPath(path.scheme(), path.authority(), "/").toUri();
        return CREATED.computeIfAbsent(root, key -> {
            try {
                return factory.create(key);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the " + path.scheme() + " file system at " + key
                        + ": " + e.getMessage(), e);
            }
        });
    }

    /** The schemes served, local included, sorted. */
    public static java.util.Set<String> schemes() {
        return java.util.Collections.unmodifiableSet(FACTORIES.keySet());
    }

    private static Map<String, FileSystemFactory> loadFactories() {
        Map<String, FileSystemFactory> factories = new TreeMap<>();
        factories.put(FsPath.LOCAL_SCHEME, new FileSystemFactory() {
            @Override
            public String scheme() {
                return FsPath.LOCAL_SCHEME;
            }

            @Override
            public FileSystem create(URI root) {
                return LocalFileSystem.INSTANCE;
            }
        });
        ClassLoader loader = FileSystems.class.getClassLoader();
        for (FileSystemFactory factory : ServiceLoader.load(FileSystemFactory.class, loader)) {
            factories.putIfAbsent(factory.scheme(), factory);
        }
        return factories;
    }

    /** No file system serves a path's scheme; the message is one line for the user. */
    public static final class UnsupportedFileSystemException extends IllegalArgumentException {
        private final FsPath path;

        UnsupportedFileSystemException(FsPath path) {
            super("no file system for scheme '" + path.scheme() + "' (in " + path + "): Duraflow serves "
                    + String.join(", ", FACTORIES.keySet()) + " paths here; hdfs: needs the duraflow-hadoop jar on"
                    + " the class path (bin/duraflow has it)");
            this.path = path;
        }

        public FsPath path() {
            return path;
        }
    }
}

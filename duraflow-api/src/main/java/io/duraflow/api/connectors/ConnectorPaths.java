package io.duraflow.api.connectors;

import java.nio.file.Path;

/** How the file connectors turn the path they are given into the path they keep. */
final class ConnectorPaths {
    private ConnectorPaths() {}

    /**
     * The absolute, normalized form of {@code path}, resolved once where the job is built so that
     * every task reads or writes the same place whatever its working directory.
     *
     * @param what names the path in the error message, e.g. {@code "input path"}
     * @throws IllegalArgumentException if the path is null or empty (which would mean the working directory)
     */
    static Path absolute(String path, String what) {
        if (path == null || path.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return Path.of(path).toAbsolutePath().normalize();
    }
}

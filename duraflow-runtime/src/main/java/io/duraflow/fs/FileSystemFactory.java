package io.duraflow.fs;

import java.net.URI;

/**
 * Makes the {@link FileSystem} of one URI scheme available to {@link FileSystems}. An
 * implementation in another module (the Hadoop-backed one, for {@code hdfs:}) registers itself
 * through {@link java.util.ServiceLoader}: a file
 * {@code META-INF/services/io.duraflow.fs.FileSystemFactory} naming the class, which needs a public
 * no-argument constructor.
 */
public interface FileSystemFactory {
    /** The scheme served, lower case, e.g. {@code hdfs}. */
    String scheme();

    /**
     * The file system holding the location {@code scheme://authority/}; called once per scheme and
     * authority, and the result is shared.
     *
     * @param root {@code scheme://authority/} of a path being opened
     * @throws java.io.IOException if it cannot be reached or configured
     */
    FileSystem create(URI root) throws java.io.IOException;
}

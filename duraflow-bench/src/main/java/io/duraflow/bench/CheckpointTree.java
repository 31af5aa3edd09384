package io.duraflow.bench;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/** A directory tree a {@link CheckpointFileCensus} scans: a local directory, or one of any Duraflow file system (HDFS). */
public interface CheckpointTree {
    /** Calls {@code visitor} for every regular file under the root; nothing if the root does not exist (yet). */
    void walk(Visitor visitor) throws IOException;

    /** One regular file: its path relative to the root ({@code /}-separated), size and modification time. */
    interface Visitor {
        void file(String relativePath, long sizeBytes, long modifiedMillis);
    }

    /** A local directory tree. */
    static CheckpointTree local(Path root) {
        return visitor -> {
            if (!Files.isDirectory(root)) {
                return;
            }
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile()) {
                        visitor.file(root.relativize(file).toString().replace(java.io.File.separatorChar, '/'),
                                attributes.size(), attributes.lastModifiedTime().toMillis());
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE; // deleted between listing and reading
                }
            });
        };
    }

    /**
     * A tree of any Duraflow {@link FileSystem}, listed directory by directory (on HDFS a file
     * being written shows its synced bytes: Duraflow syncs with the length update).
     */
    static CheckpointTree of(FileSystem fileSystem, FsPath root) {
        String prefix = root.path().endsWith("/") ? root.path() : root.path() + "/";
        return visitor -> walk(fileSystem, root, prefix, visitor);
    }

    private static void walk(FileSystem fileSystem, FsPath directory, String prefix, Visitor visitor) throws IOException {
        List<FileStatus> entries;
        try {
            entries = fileSystem.list(directory);
        } catch (NoSuchFileException e) {
            return; // not there yet, or deleted meanwhile
        }
        for (FileStatus status : entries) {
            if (status.isDirectory()) {
                walk(fileSystem, status.path(), prefix, visitor);
            } else {
                String path = status.path().path();
                visitor.file(path.startsWith(prefix) ? path.substring(prefix.length()) : path, status.lengthBytes(),
                        status.modificationTimeMs());
            }
        }
    }
}

package io.duraflow.jobmanager.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * File operations of the stores, chosen so that they stay correct where rename is not atomic
 * (object stores): files are created with {@code CREATE_NEW} or written under a temp name and then
 * moved without {@code ATOMIC_MOVE}. Temp names start with a dot and end with {@code .tmp}; job ids
 * never start with a dot, so readers, which only look at {@code <jobId>.<suffix>} names, never see
 * them. Unlike {@link Files#exists}, nothing here turns an I/O error into "absent".
 */
final class StoreFiles {
    private StoreFiles() {
    }

    /** Whether the file exists; errors other than "no such file" are thrown. */
    static boolean exists(Path file) throws IOException {
        try {
            Files.readAttributes(file, BasicFileAttributes.class);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** The file's bytes, or empty if it does not exist (also if it disappears while we look). */
    static Optional<byte[]> readIfExists(Path file) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Creates {@code file} with these bytes and syncs it, creating its directory if needed. If
     * writing fails after the file was created, the partial file is deleted.
     *
     * @throws FileAlreadyExistsException if the file exists: exactly one of several concurrent
     *     creators succeeds, also across processes
     */
    static void createNew(Path file, byte[] bytes) throws IOException {
        createDirectories(file.getParent());
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try (channel) {
            writeFully(channel, bytes);
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(file, e);
            throw e;
        }
        syncDirectory(file.getParent());
    }

    /**
     * Writes the bytes to a temp file next to {@code file}, syncs it and moves it to {@code file}.
     * The move need not be atomic: readers never see the temp name, and on an object store a
     * single object appears whole or not at all.
     *
     * @param replace whether an existing {@code file} is replaced
     * @return false if {@code file} exists and {@code replace} is false; nothing is written then
     */
    static boolean writeViaTemp(Path file, byte[] bytes, boolean replace) throws IOException {
        Path directory = file.getParent();
        createDirectories(directory);
        Path temp = directory.resolve("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                writeFully(channel, bytes);
                channel.force(true);
            }
            if (replace) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.move(temp, file);
            }
        } catch (FileAlreadyExistsException e) {
            Files.deleteIfExists(temp);
            return false;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp, e);
            throw e;
        }
        syncDirectory(directory);
        return true;
    }

    /** Deletes the file if it exists and syncs its directory; returns whether it existed. */
    static boolean delete(Path file) throws IOException {
        boolean deleted = Files.deleteIfExists(file);
        if (deleted) {
            syncDirectory(file.getParent());
        }
        return deleted;
    }

    /** Names of the entries of the directory, or none if it does not exist (it is created lazily). */
    static List<String> fileNames(Path directory) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }

    /**
     * Creates the directory and its parents if needed. A file in the way is a
     * {@link NotDirectoryException}, never a {@link FileAlreadyExistsException}, which callers
     * read as "the entry exists".
     */
    private static void createDirectories(Path directory) throws IOException {
        try {
            Files.createDirectories(directory);
        } catch (FileAlreadyExistsException e) {
            throw new NotDirectoryException(directory.toString());
        }
    }

    private static void writeFully(FileChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /**
     * Makes a created, moved or deleted name durable. Best effort: some platforms (Windows) and
     * file systems cannot open or sync a directory, and there nothing more can be done.
     */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not supported here; the file's own contents were synced already.
        }
    }

    private static void deleteQuietly(Path file, Exception cause) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}

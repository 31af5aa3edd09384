package io.duraflow.taskmanager;

import io.duraflow.exchange.blocking.PartitionStore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data directory of one running TaskManager (partitions, spill files, local state), owned through an
 * operating-system lock on its {@value #LOCK_FILE} for as long as the process lives. The OS drops
 * the lock however the process ends, SIGKILL included, so a lock that can be taken means the
 * previous owner is dead and whatever it left is garbage; a lock that cannot be taken means a
 * live TaskManager uses the directory, and nothing of it is touched.
 *
 * <p>Two layouts: a configured {@code taskmanager.data-dir} belongs to one TaskManager at a time
 * (a second one sharing it is refused: both would write and release the same partition files),
 * and its dead predecessor's {@code partitions/}, {@code spill/} and {@code state/} are swept when it is claimed;
 * without one, each TaskManager makes a {@value #TEMP_PREFIX}* directory under the temp dir and
 * first deletes those of dead TaskManagers there.
 */
public final class InstanceDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceDirectory.class);
    static final String LOCK_FILE = "taskmanager.lock";
    static final String TEMP_PREFIX = "duraflow-tm-";
    /** Local files of state backends (RocksDB databases), one directory per task attempt and operator. */
    static final String STATE = "state";
    /** What a TaskManager writes under its directory; the sweep deletes only these. */
    private static final String[] OWNED = {"partitions", "spill", STATE};

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private final boolean temporary;

    private InstanceDirectory(Path path, FileChannel channel, FileLock lock, boolean temporary) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
        this.temporary = temporary;
    }

    /**
     * Claims a configured data directory, sweeping what a dead previous TaskManager left there.
     *
     * @throws IllegalStateException if a live TaskManager holds it
     */
    public static InstanceDirectory claim(Path directory) throws IOException {
        Files.createDirectories(directory);
        InstanceDirectory claimed = tryLock(directory, false);
        if (claimed == null) {
            throw new IllegalStateException("the TaskManager data directory " + directory + " is in use by a running"
                    + " TaskManager (" + holder(directory) + "); give each TaskManager its own taskmanager.data-dir");
        }
        int swept = 0;
        for (String owned : OWNED) {
            swept += PartitionStore.countFiles(directory.resolve(owned));
            PartitionStore.deleteTree(directory.resolve(owned));
        }
        if (swept > 0) {
            LOG.warn("Deleted {} files that a TaskManager which did not shut down cleanly left in {}", swept,
                    directory);
        }
        claimed.writeOwner();
        return claimed;
    }

    /** Makes and claims a new directory under {@code parent}, first deleting those of dead TaskManagers there. */
    public static InstanceDirectory createTemporary(Path parent) throws IOException {
        sweepDead(parent);
        Path directory = Files.createTempDirectory(parent, TEMP_PREFIX);
        InstanceDirectory claimed = tryLock(directory, true);
        if (claimed == null) {
            throw new IllegalStateException("cannot lock the new TaskManager directory " + directory);
        }
        claimed.writeOwner();
        return claimed;
    }

    /**
     * Deletes every {@value #TEMP_PREFIX}* directory under {@code parent} whose lock no live process
     * holds. A directory without a lock file is left alone: it may be one whose owner is just
     * being created, or not a TaskManager's at all.
     */
    static int sweepDead(Path parent) throws IOException {
        int swept = 0;
        try (DirectoryStream<Path> candidates = Files.newDirectoryStream(parent, TEMP_PREFIX + "*")) {
            for (Path candidate : candidates) {
                if (!Files.isRegularFile(candidate.resolve(LOCK_FILE))) {
                    continue;
                }
                InstanceDirectory dead = tryLock(candidate, true);
                if (dead != null) {
                    LOG.warn("Deleting {}: left by a TaskManager that did not shut down cleanly", candidate);
                    // Delete while holding the lock, so that no second sweeper races this one.
                    dead.close();
                    swept++;
                }
            }
        }
        return swept;
    }

    /** The directory locked for this process, or null if a live process (this one included) holds it. */
    private static InstanceDirectory tryLock(Path directory, boolean temporary) throws IOException {
        FileChannel channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;  // held by another TaskManager in this JVM (tests run several)
        }
        if (lock == null) {
            channel.close();
            return null;
        }
        return new InstanceDirectory(directory, channel, lock, temporary);
    }

    private void writeOwner() throws IOException {
        byte[] owner = ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(owner), 0);
    }

    private static String holder(Path directory) {
        try {
            return Files.readString(directory.resolve(LOCK_FILE), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "owner unknown";
        }
    }

    public Path path() {
        return path;
    }

    /** Releases the directory; a temporary one is deleted first, while still locked. */
    @Override
    public void close() {
        if (temporary) {
            PartitionStore.deleteTree(path);
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            LOG.warn("Could not release the lock of {}", path, e);
        }
    }
}

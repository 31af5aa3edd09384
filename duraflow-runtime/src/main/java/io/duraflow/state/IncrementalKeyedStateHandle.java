package io.duraflow.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Keyed state of one parallel instance as a native snapshot of an incremental backend (RocksDB):
 * the files of one database checkpoint. SST files are {@linkplain #sharedFiles() shared}: uploaded
 * to the job's {@code shared/} directory once and referred to by every later checkpoint of the same
 * backend instance while the database still holds them; the few other files (MANIFEST, CURRENT,
 * OPTIONS) and the backend's own {@linkplain #metaData() metadata} (states, key serializer, key
 * groups) are private to this checkpoint, under its {@code chk-<n>/}.
 *
 * <p>{@link #intersection} keeps the whole handle when it covers any of the asked key groups: the
 * database cannot be cut without opening it, so the restoring backend opens it and clips the
 * key groups it does not own (deletes their ranges) instead.
 *
 * @param backendId the backend instance that wrote it (a random id per instance): an instance
 *     reuses only files it uploaded itself, and those of the one handle it restored as it was (same
 *     key groups) unless its first checkpoint is full (no-claim restore)
 * @param checkpointId the checkpoint this snapshot was taken for
 * @param keyGroupRange the key groups the database holds
 * @param sharedFiles the SST files, by their name in the database; {@link SharedFile#reused()}
 *     marks those uploaded by an earlier checkpoint
 * @param privateFiles the other database files, by name, uploaded for this checkpoint only
 * @param metaData the backend's description of the database's states
 */
public record IncrementalKeyedStateHandle(String backendId, long checkpointId, KeyGroupRange keyGroupRange,
        List<SharedFile> sharedFiles, List<PrivateFile> privateFiles, StreamStateHandle metaData)
        implements KeyedStateHandle {

    /**
     * An SST file of the database.
     *
     * @param name its file name in the database directory, e.g. {@code 000042.sst}
     * @param handle where its bytes are in checkpoint storage
     * @param reused true when an earlier checkpoint uploaded it (this one only refers to it)
     */
    public record SharedFile(String name, StreamStateHandle handle, boolean reused) {
        public SharedFile {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(handle, "handle");
        }
    }

    /** A database file uploaded for this checkpoint only (MANIFEST, CURRENT, OPTIONS). */
    public record PrivateFile(String name, StreamStateHandle handle) {
        public PrivateFile {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(handle, "handle");
        }
    }

    public IncrementalKeyedStateHandle {
        Objects.requireNonNull(backendId, "backendId");
        Objects.requireNonNull(keyGroupRange, "keyGroupRange");
        sharedFiles = List.copyOf(sharedFiles);
        privateFiles = List.copyOf(privateFiles);
        Objects.requireNonNull(metaData, "metaData");
        if (keyGroupRange.isEmpty()) {
            throw new IllegalArgumentException("incremental snapshot " + checkpointId + " of backend " + backendId
                    + " covers no key group");
        }
    }

    @Override
    public IncrementalKeyedStateHandle intersection(KeyGroupRange range) {
        return keyGroupRange.intersection(range).isEmpty() ? null : this;
    }

    /** Every byte the snapshot refers to, reused files included: what a restore reads. */
    @Override
    public long stateSize() {
        long size = metaData.length();
        for (SharedFile file : sharedFiles) {
            size += file.handle().length();
        }
        for (PrivateFile file : privateFiles) {
            size += file.handle().length();
        }
        return size;
    }

    /** The bytes this checkpoint uploaded: {@link #stateSize()} without the reused files. */
    @Override
    public long checkpointedSize() {
        long size = metaData.length();
        for (SharedFile file : sharedFiles) {
            if (!file.reused()) {
                size += file.handle().length();
            }
        }
        for (PrivateFile file : privateFiles) {
            size += file.handle().length();
        }
        return size;
    }

    @Override
    public List<StreamStateHandle> streams() {
        List<StreamStateHandle> streams = new ArrayList<>(sharedFiles.size() + privateFiles.size() + 1);
        for (SharedFile file : sharedFiles) {
            streams.add(file.handle());
        }
        for (PrivateFile file : privateFiles) {
            streams.add(file.handle());
        }
        streams.add(metaData);
        return streams;
    }

    /** The number of shared files an earlier checkpoint uploaded. */
    public int reusedFiles() {
        int reused = 0;
        for (SharedFile file : sharedFiles) {
            if (file.reused()) {
                reused++;
            }
        }
        return reused;
    }
}

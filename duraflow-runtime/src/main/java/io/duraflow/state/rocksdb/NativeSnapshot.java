package io.duraflow.state.rocksdb;

import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.IncrementalKeyedStateHandle.PrivateFile;
import io.duraflow.state.IncrementalKeyedStateHandle.SharedFile;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDBException;

/**
 * A native RocksDB snapshot: a database checkpoint on the task thread, its files uploaded on the
 * transfer pool into one {@link IncrementalKeyedStateHandle}. Its rules: see
 * docs/design/state-backends.md#nativesnapshot.
 */
final class NativeSnapshot {
    private static final int COPY_BUFFER_BYTES = 64 * 1024;

    private NativeSnapshot() {
    }

    /** Makes the database checkpoint in {@code directory} (which must not exist): the synchronous part. */
    static void checkpoint(RocksDBInstance db, Path directory) throws IOException {
        try (Checkpoint checkpoint = Checkpoint.create(db.db())) {
            checkpoint.createCheckpoint(directory.toString());
        } catch (RocksDBException e) {
            throw new IOException("cannot make a RocksDB checkpoint of " + db.directory() + " in " + directory + ": "
                    + e.getMessage(), e);
        }
    }

    /** The asynchronous part: uploads the checkpoint in {@code directory}. */
    static IncrementalKeyedStateHandle upload(String backendId, long checkpointId, KeyGroupRange range,
            Path directory, Map<String, StreamStateHandle> reusable, BackendMetadata metadata,
            CheckpointStreamFactory streams, Executor pool, BooleanSupplier stopRequested) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(directory)) {
            files = listing.filter(Files::isRegularFile).sorted().toList();
        }
        List<String> names = new ArrayList<>();
        List<Boolean> sst = new ArrayList<>();
        List<Transfers.Job<StreamStateHandle>> jobs = new ArrayList<>();
        List<SharedFile> reused = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            boolean isSst = name.endsWith(".sst");
            StreamStateHandle earlier = isSst ? reusable.get(name) : null;
            // The stream factory may refuse: a merged file picked to be rewritten (space control) or gone.
            if (earlier != null && streams.tryReuse(earlier)) {
                reused.add(new SharedFile(name, earlier, true));
                continue;
            }
            names.add(name);
            sst.add(isSst);
            CheckpointedStateScope scope = isSst ? CheckpointedStateScope.SHARED : CheckpointedStateScope.EXCLUSIVE;
            jobs.add(stopped -> copy(file, streams, scope, stopped));
        }
        jobs.add(stopped -> write(metadata.toBytes(), streams));
        List<StreamStateHandle> uploaded = Transfers.runAll(jobs, pool, stopRequested,
                handle -> SnapshotFuture.discardQuietly(streams, handle),
                "uploading RocksDB checkpoint " + checkpointId + " of key groups " + range);
        List<SharedFile> shared = new ArrayList<>(reused);
        List<PrivateFile> privates = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (sst.get(i)) {
                shared.add(new SharedFile(names.get(i), uploaded.get(i), false));
            } else {
                privates.add(new PrivateFile(names.get(i), uploaded.get(i)));
            }
        }
        shared.sort(java.util.Comparator.comparing(SharedFile::name));
        return new IncrementalKeyedStateHandle(backendId, checkpointId, range, shared, privates,
                uploaded.get(uploaded.size() - 1));
    }

    private static StreamStateHandle copy(Path file, CheckpointStreamFactory streams, CheckpointedStateScope scope,
            BooleanSupplier stopped) throws IOException {
        try (InputStream in = Files.newInputStream(file);
                CheckpointOutputStream out = streams.createCheckpointOutputStream(scope)) {
            byte[] buffer = new byte[COPY_BUFFER_BYTES];
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                if (stopped.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("upload of " + file + " stopped");
                }
                out.write(buffer, 0, read);
            }
            return out.closeAndGetHandle();
        }
    }

    private static StreamStateHandle write(byte[] bytes, CheckpointStreamFactory streams) throws IOException {
        try (CheckpointOutputStream out = streams.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            out.write(bytes);
            return out.closeAndGetHandle();
        }
    }
}

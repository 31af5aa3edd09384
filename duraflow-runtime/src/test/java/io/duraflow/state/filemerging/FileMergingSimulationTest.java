package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.APPEND_BUFFER_BYTES;
import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded runs of one TaskManager's file merging for three subtasks, each an incremental backend:
 * its files come and go, it reuses the uploads of the last checkpoint it knows completed (if the
 * manager lets it) and writes private state; checkpoints complete (with one to three retained,
 * older pending ones aborted as the coordinator does), are declined and aborted, and any
 * notification to any task may be lost. The settings are random too: within or across
 * checkpoints, blocking or not, file size, inlining, space limit.
 *
 * <p>After every step:
 * <ul>
 *   <li>every segment a retained or pending checkpoint refers to reads back exactly and verifies
 *       (so no file it lies in was deleted);</li>
 *   <li>the manager's accounting is the disk's: as many files and as many bytes;</li>
 *   <li>its live bytes are at least those of the distinct segments retained or pending checkpoints
 *       refer to.</li>
 * </ul>
 * At the end, the state stops changing (no new files, no private state) and {@link #QUIET}
 * checkpoints complete with every notification delivered; then:
 * <ul>
 *   <li>no leak: the files on disk that no retained checkpoint refers to are no more than the
 *       files the manager keeps open for new segments (across checkpoints), and after {@code
 *       close()} the files on disk are exactly those the retained checkpoints refer to;</li>
 *   <li>space: with space control on, the bytes on disk are at most {@code
 *       max-space-amplification} times the live bytes. Not at every completion: a completion over
 *       the limit picks files whose dead bytes bring it under, but they go only once their
 *       segments die, {@code num-retained} completions later, after the next checkpoint wrote
 *       their live segments again (with at most 6% of framing, which the next completion counts).
 *       During the random part the bytes on disk can reach several times the limit.</li>
 * </ul>
 */
class FileMergingSimulationTest {
    private static final int SEEDS = 24;
    private static final int CHECKPOINTS = 25;
    /** Quiet checkpoints at the end: space control can pick, rewrite and delete twice over with 3 retained. */
    private static final int QUIET = 10;
    /** Segments are at least this long, so a trailer adds at most 6% and space control can reach its limit. */
    private static final int MIN_SEGMENT_BYTES = 256;

    @TempDir
    Path tmp;

    @Test
    void randomCheckpointsLoseNoReferencedSegmentLeakNoFileAndKeepTheSpaceLimit() {
        for (int seed = 0; seed < SEEDS; seed++) {
            new Simulation(seed, tmp.resolve("seed-" + seed)).run();
        }
    }

    /** What a backend stored: a handle and the bytes it must read back. */
    private record Stored(StreamStateHandle handle, byte[] bytes) {}

    /** One subtask's part of a checkpoint: its incremental files by name, and its private streams. */
    private record Snapshot(Map<String, Stored> shared, List<Stored> exclusive) {
        Stream<Stored> all() {
            return Stream.concat(shared.values().stream(), exclusive.stream());
        }
    }

    private static final class Checkpoint {
        final long id;
        final Map<SubtaskKey, Snapshot> acknowledged = new LinkedHashMap<>();
        boolean declined;

        Checkpoint(long id) {
            this.id = id;
        }

        Stream<Stored> stored() {
            return acknowledged.values().stream().flatMap(Snapshot::all);
        }
    }

    /** An incremental backend of one subtask, like RocksDB's: immutable files uploaded once, reused while they live. */
    private static final class Backend {
        final SubtaskKey subtask;
        final TreeMap<String, byte[]> files = new TreeMap<>();
        /** The uploads of the last checkpoint this subtask knows completed. */
        Map<String, Stored> reusable = Map.of();
        int nextFile;

        Backend(SubtaskKey subtask) {
            this.subtask = subtask;
        }
    }

    private static final class Simulation {
        final long seed;
        final Random random;
        final MergingFixture fixture;
        final FileMergingSettings settings;
        final int numRetained;
        final double loss;
        final FileMergingSnapshotManager manager;
        final List<Backend> backends = new ArrayList<>();
        final TreeMap<Long, Checkpoint> pending = new TreeMap<>();
        final Deque<Checkpoint> retained = new ArrayDeque<>();
        final Deque<String> trace = new ArrayDeque<>();
        /** Segments read back whole once already. */
        final Set<FileSegmentHandle> readBack = new HashSet<>();
        long nextId = 1;

        Simulation(long seed, Path root) {
            this.seed = seed;
            this.random = new Random(seed * 0x9E3779B97F4A7C15L); // spread: nearby seeds start alike
            this.fixture = new MergingFixture(root, new TestFileSystem(false));
            double[] limits = {0, 1.2, 1.5, 2.0, 3.0};
            long[] fileSizes = {4 << 10, 16 << 10, 1 << 20};
            this.settings = new FileMergingSettings(random.nextBoolean(), fileSizes[random.nextInt(fileSizes.length)],
                    random.nextBoolean(), 1 + random.nextInt(3), limits[random.nextInt(limits.length)],
                    random.nextBoolean() ? 0 : 300, APPEND_BUFFER_BYTES);
            this.numRetained = 1 + random.nextInt(3);
            this.loss = random.nextInt(3) * 0.1;
            SubtaskKey[] subtasks = {new SubtaskKey(1, 0, 2), new SubtaskKey(1, 1, 2), new SubtaskKey(2, 0, 1)};
            this.manager = fixture.manager("run1", settings, subtasks);
            for (SubtaskKey subtask : subtasks) {
                backends.add(new Backend(subtask));
            }
            event("start: %s, %d retained, notifications lost with p=%.1f", settings, numRetained, loss);
        }

        void run() {
            try {
                for (int i = 0; i < CHECKPOINTS; i++) {
                    trigger(false);
                    while (!pending.isEmpty() && (pending.size() > 2 || random.nextInt(3) > 0)) {
                        resolve(pickPending());
                    }
                }
                while (!pending.isEmpty()) {
                    abort(pending.firstEntry().getValue());
                }
                for (int i = 0; i < QUIET; i++) {
                    complete(trigger(true), true);
                }
                checkEnd();
            } catch (IOException | RuntimeException | AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\nlast steps:\n"
                        + String.join("\n", trace), e);
            }
        }

        Checkpoint pickPending() {
            List<Checkpoint> candidates = new ArrayList<>(pending.values());
            return candidates.get(random.nextInt(candidates.size()));
        }

        /** Every subtask takes its part of a new checkpoint (quiet: the state does not change). */
        Checkpoint trigger(boolean quiet) throws IOException {
            Checkpoint checkpoint = new Checkpoint(nextId++);
            for (Backend backend : backends) {
                if (!quiet && random.nextInt(15) == 0) {
                    checkpoint.declined = true;
                    continue;
                }
                if (!quiet) {
                    evolve(backend);
                }
                Snapshot snapshot = snapshot(backend, checkpoint.id, quiet);
                manager.acknowledging(backend.subtask, checkpoint.id);
                checkpoint.acknowledged.put(backend.subtask, snapshot);
            }
            pending.put(checkpoint.id, checkpoint);
            event("trigger %d%s: %d files", checkpoint.id, checkpoint.declined ? " (declined)" : "",
                    checkpoint.stored().count());
            check();
            return checkpoint;
        }

        void evolve(Backend backend) {
            backend.files.keySet().removeIf(name -> random.nextInt(5) == 0); // compacted away
            for (int i = random.nextInt(3); i > 0; i--) {
                backend.files.put(String.format(Locale.ROOT, "%06d.sst", backend.nextFile++), randomBytes());
            }
        }

        byte[] randomBytes() {
            int length = random.nextInt(4) == 0 ? APPEND_BUFFER_BYTES + 1 + random.nextInt(12_000)
                    : MIN_SEGMENT_BYTES + random.nextInt(3000);
            return bytes(length, random.nextLong());
        }

        Snapshot snapshot(Backend backend, long checkpointId, boolean quiet) throws IOException {
            CheckpointStreamFactory streams = manager.streamFactory(backend.subtask, checkpointId);
            Map<String, Stored> shared = new TreeMap<>();
            for (Map.Entry<String, byte[]> file : backend.files.entrySet()) {
                Stored earlier = backend.reusable.get(file.getKey());
                shared.put(file.getKey(), earlier != null && streams.tryReuse(earlier.handle()) ? earlier
                        : new Stored(write(streams, CheckpointedStateScope.SHARED, file.getValue()), file.getValue()));
            }
            List<Stored> exclusive = new ArrayList<>();
            for (int i = quiet ? 0 : 1 + random.nextInt(2); i > 0; i--) {
                byte[] bytes = randomBytes();
                exclusive.add(new Stored(write(streams, CheckpointedStateScope.EXCLUSIVE, bytes), bytes));
            }
            return new Snapshot(shared, exclusive);
        }

        void resolve(Checkpoint checkpoint) {
            if (checkpoint.declined || random.nextInt(5) == 0) {
                abort(checkpoint);
            } else {
                complete(checkpoint, false);
            }
        }

        /** As the coordinator: the store retains it, tasks are notified, older pending checkpoints are aborted. */
        void complete(Checkpoint checkpoint, boolean deliverAll) {
            pending.remove(checkpoint.id);
            // Older pending checkpoints can no longer complete; their tasks hear it after the completion.
            List<Checkpoint> subsumed = new ArrayList<>(pending.headMap(checkpoint.id).values());
            subsumed.forEach(older -> pending.remove(older.id));
            retained.addLast(checkpoint);
            while (retained.size() > numRetained) {
                retained.removeFirst();
            }
            long lowestRetainedId = retained.getFirst().id;
            List<String> lost = new ArrayList<>();
            for (Backend backend : backends) {
                if (!deliverAll && random.nextDouble() < loss) {
                    lost.add(backend.subtask.toString());
                    continue;
                }
                manager.checkpointCompleted(checkpoint.id, lowestRetainedId);
                backend.reusable = checkpoint.acknowledged.get(backend.subtask).shared();
            }
            event("complete %d, lowest retained %d%s", checkpoint.id, lowestRetainedId,
                    lost.isEmpty() ? "" : ", lost to " + lost);
            check();
            subsumed.forEach(this::abort);
        }

        void abort(Checkpoint checkpoint) {
            pending.remove(checkpoint.id);
            int delivered = 0;
            for (Backend ignored : backends) {
                if (random.nextDouble() >= loss) {
                    manager.checkpointAborted(checkpoint.id);
                    delivered++;
                }
            }
            event("abort %d, %d of %d notifications delivered", checkpoint.id, delivered, backends.size());
            check();
        }

        /**
         * The invariants after every step. A segment is read back and verified whole the first time a
         * checkpoint in use refers to it; files are only appended to, so afterwards it is enough that
         * its file is still there.
         */
        void check() {
            try {
                Set<FileSegmentHandle> referenced = new HashSet<>();
                for (Checkpoint checkpoint : inUse()) {
                    for (Stored stored : checkpoint.stored().toList()) {
                        if (!(stored.handle() instanceof FileSegmentHandle segment)) {
                            continue;
                        }
                        if (referenced.add(segment) && readBack.add(segment)) {
                            fixture.assertReadsBack(segment, stored.bytes());
                        }
                    }
                }
                List<FsPath> onDisk = fixture.filesOnDisk();
                for (FileSegmentHandle segment : referenced) {
                    assertThat(onDisk).as("files on disk, for %s", segment).contains(segment.file());
                }
                SpaceUsage usage = manager.spaceUsage();
                assertThat(usage.files()).as("files known / on disk").isEqualTo(onDisk.size());
                assertThat(usage.physicalBytes()).as("bytes known / on disk")
                        .isEqualTo(onDisk.stream().mapToLong(fixture::size).sum());
                assertThat(usage.liveBytes()).as("live bytes / bytes of referenced segments")
                        .isGreaterThanOrEqualTo(referenced.stream().mapToLong(FileSegmentHandle::length).sum());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        List<Checkpoint> inUse() {
            List<Checkpoint> inUse = new ArrayList<>(retained);
            inUse.addAll(pending.values());
            return inUse;
        }

        void checkEnd() {
            Set<FsPath> referenced = new TreeSet<>(java.util.Comparator.comparing(FsPath::toString));
            retained.forEach(checkpoint -> checkpoint.stored().map(Stored::handle)
                    .filter(FileSegmentHandle.class::isInstance)
                    .forEach(handle -> referenced.add(((FileSegmentHandle) handle).file())));
            SpaceUsage usage = manager.spaceUsage();
            event("end: %s (%.2fx)", usage, usage.amplification());
            List<FsPath> unreferenced = new ArrayList<>(fixture.filesOnDisk());
            unreferenced.removeAll(referenced);
            assertThat(unreferenced.size()).as("files no retained checkpoint refers to: %s", unreferenced)
                    .isLessThanOrEqualTo(usage.openFiles());
            if (settings.controlsSpace()) {
                assertThat(usage.physicalBytes()).as("bytes on disk, %s", usage)
                        .isLessThanOrEqualTo((long) (settings.maxSpaceAmplification() * usage.liveBytes()));
            }

            manager.close();

            assertThat(fixture.filesOnDisk()).as("after close").containsExactlyInAnyOrderElementsOf(referenced);
            for (Checkpoint checkpoint : retained) {
                for (Stored stored : checkpoint.stored().toList()) {
                    try {
                        fixture.assertReadsBack(stored.handle(), stored.bytes());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }

        void event(String format, Object... args) {
            trace.addLast(String.format(Locale.ROOT, format, args));
            if (trace.size() > 25) {
                trace.removeFirst();
            }
        }
    }
}

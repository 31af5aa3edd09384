package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.SegmentLedgerInvariants.require;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
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

/**
 * One seeded run of {@link SegmentLedgerSimulationTest}: a {@link SegmentLedger} with
 * {@link SpaceControl} in memory, the coordinator's and the tasks' steps drawn from the seed. The
 * pools and writers are played by {@link SimulatedFilePools}; {@link SegmentLedgerInvariants} checks
 * the invariants after every step and ends the run.
 */
final class SegmentLedgerSimulation {
    static final int STEPS = 150;
    static final int QUIET = 10;
    static final long RESTORED_ID = 5;
    static final int MIN_SEGMENT_BYTES = 256;
    static final int HEADER = MergedFileFormat.HEADER_BYTES;
    static final int TRAILER = MergedFileFormat.TRAILER_BYTES;
    static final SubtaskKey[] SUBTASKS = {new SubtaskKey(1, 0, 2), new SubtaskKey(1, 1, 2),
        new SubtaskKey(2, 0, 1)};
    static final CheckpointDirectories JOB = CheckpointDirectories.of(FsPath.parse("/checkpoints"), "job");
    static final CheckpointDirectories OTHER_JOB = CheckpointDirectories.of(FsPath.parse("/checkpoints"),
            "other-job");

    /** One subtask's part of a checkpoint: its incremental files by name, its private segments, its open streams. */
    static final class Part {
        final Map<String, Segment> shared = new TreeMap<>();
        final List<Segment> exclusive = new ArrayList<>();
        int openStreams;
        boolean acknowledged;

        Stream<Segment> segments() {
            return Stream.concat(shared.values().stream(), exclusive.stream());
        }
    }

    static final class Checkpoint {
        final long id;
        final Map<SubtaskKey, Part> parts = new LinkedHashMap<>();
        boolean declined;

        Checkpoint(long id) {
            this.id = id;
        }

        Stream<Segment> segments() {
            return parts.values().stream().flatMap(Part::segments);
        }

        boolean acknowledged() {
            return !declined && parts.values().stream().allMatch(part -> part.acknowledged);
        }
    }

    /** An incremental backend of one subtask: immutable files, reused from the last checkpoint it knows completed. */
    static final class Backend {
        final SubtaskKey subtask;
        final TreeMap<String, Integer> files = new TreeMap<>();
        Map<String, Segment> uploaded = Map.of();
        int nextFile;

        Backend(SubtaskKey subtask) {
            this.subtask = subtask;
        }
    }

    /** A large stream of incremental state holding a file; its segment is the file {@code name} of its part. */
    record OpenStream(PhysicalFile file, Checkpoint checkpoint, SubtaskKey subtask, String name, int length) {}

    final long seed;
    final Random random;
    final boolean acrossCheckpoints;
    final long maxFileSizeBytes;
    final int numRetained;
    final double loss;
    final SpaceControl spaceControl;
    final SegmentLedger ledger = new SegmentLedger();
    final Map<SubtaskKey, Backend> backends = new LinkedHashMap<>();
    final TreeMap<Long, Checkpoint> pending = new TreeMap<>();
    final Deque<Checkpoint> retained = new ArrayDeque<>();
    final List<OpenStream> streams = new ArrayList<>();
    final List<Long> abortedIds = new ArrayList<>();
    /** What the ledger was told: acknowledgements, aborts, the lowest retained id. */
    final Map<SubtaskKey, TreeSet<Long>> acknowledged = new HashMap<>();
    final Set<Long> abortsNotified = new HashSet<>();
    long lowestRetainedNotified;
    boolean runEnded;
    final Deque<String> trace = new ArrayDeque<>();
    long nextId = RESTORED_ID + 1;
    final SimulatedFilePools filePools = new SimulatedFilePools(this);
    final SegmentLedgerInvariants invariants = new SegmentLedgerInvariants(this);

    SegmentLedgerSimulation(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        this.acrossCheckpoints = random.nextBoolean();
        this.maxFileSizeBytes = new long[] {4 << 10, 16 << 10, 1 << 20}[random.nextInt(3)];
        this.numRetained = 1 + random.nextInt(3);
        this.loss = random.nextInt(3) * 0.1;
        this.spaceControl = new SpaceControl(new double[] {0, 1.2, 1.5, 2.0, 3.0}[random.nextInt(5)]);
        for (SubtaskKey subtask : SUBTASKS) {
            backends.put(subtask, new Backend(subtask));
        }
        event("start: %s checkpoints, files up to %d bytes, %d retained, space limit %.1f, loss %.1f",
                acrossCheckpoints ? "across" : "within", maxFileSizeBytes, numRetained,
                spaceControl.maxSpaceAmplification(), loss);
    }

    void run() {
        try {
            restore();
            for (int step = 0; step < STEPS; step++) {
                step();
                invariants.check();
            }
            if (random.nextInt(3) == 0) {
                invariants.endMidRun();
            } else {
                invariants.quiet();
                invariants.endQuietRun();
            }
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\nlast steps:\n"
                    + String.join("\n", trace), e);
        }
    }

    // -------------------------------------------------------------- operations

    /** The restored checkpoint: files of an earlier run of this job (reusable) and of another job (never reused). */
    void restore() {
        Checkpoint restored = new Checkpoint(RESTORED_ID);
        Map<SubtaskKey, List<FileSegmentHandle>> handles = new LinkedHashMap<>();
        Map<FsPath, Long> sizes = new HashMap<>();
        for (int f = 0, files = 1 + random.nextInt(4); f < files; f++) {
            boolean otherJob = random.nextInt(3) == 0;
            CheckpointDirectories directories = otherJob ? OTHER_JOB : JOB;
            FsPath path = directories.sharedFileMergingDirectory("earlier").resolve("restored-" + f);
            long offset = HEADER;
            for (int s = 1 + random.nextInt(4); s > 0; s--) {
                SubtaskKey subtask = SUBTASKS[random.nextInt(SUBTASKS.length)];
                int length = segmentLength();
                handles.computeIfAbsent(subtask, key -> new ArrayList<>())
                        .add(new FileSegmentHandle(path, offset, length));
                offset += length + TRAILER + (random.nextBoolean() ? 0 : segmentLength()); // dead bytes too
            }
            sizes.put(path, offset);
        }
        handles.forEach((subtask, restoredHandles) -> {
            Backend backend = backends.get(subtask);
            Part part = restored.parts.computeIfAbsent(subtask, key -> new Part());
            for (FileSegmentHandle handle : restoredHandles) {
                boolean ofThisJob = JOB.fileMergingDirectoryOf(handle.file()) != null;
                long size = sizes.get(handle.file());
                ledger.restored(subtask, RESTORED_ID, handle, ofThisJob, size);
                if (random.nextBoolean()) {
                    ledger.restored(subtask, RESTORED_ID, handle, ofThisJob, size); // restored twice: counted once
                }
                String name = String.format(Locale.ROOT, "%06d.sst", backend.nextFile++);
                backend.files.put(name, (int) handle.length());
                part.shared.put(name, segmentAt(handle));
            }
            backend.uploaded = Map.copyOf(part.shared);
        });
        retained.addLast(restored);
        event("restore %d: %d segments", RESTORED_ID, restored.segments().count());
        invariants.check();
    }

    void step() {
        int dice = random.nextInt(100);
        if (dice < 15 && pending.size() < 3) {
            trigger(false);
        } else if (dice < 55 && !pending.isEmpty()) {
            snapshotStep(randomOf(new ArrayList<>(pending.values())), false);
        } else if (dice < 65 && !streams.isEmpty()) {
            endStream(streams.remove(random.nextInt(streams.size())));
        } else if (dice < 85 && !pending.isEmpty()) {
            Checkpoint checkpoint = randomOf(new ArrayList<>(pending.values()));
            if (checkpoint.acknowledged() && random.nextInt(5) > 0) {
                complete(checkpoint, false);
            } else if (checkpoint.declined || random.nextInt(4) == 0) {
                abort(checkpoint, false);
            }
        } else if (dice < 92) {
            closeRandomFile();
        } else if (dice < 96) {
            lateWrite();
        }
    }

    Checkpoint trigger(boolean quiet) {
        Checkpoint checkpoint = new Checkpoint(nextId++);
        for (SubtaskKey subtask : SUBTASKS) {
            checkpoint.parts.put(subtask, new Part());
        }
        checkpoint.declined = !quiet && random.nextInt(15) == 0;
        pending.put(checkpoint.id, checkpoint);
        event("trigger %d%s", checkpoint.id, checkpoint.declined ? " (to be declined)" : "");
        return checkpoint;
    }

    /** A subtask that has not acknowledged yet takes its snapshot: reuses, writes, maybe opens a large stream. */
    void snapshotStep(Checkpoint checkpoint, boolean quiet) {
        List<SubtaskKey> waiting = checkpoint.parts.entrySet().stream()
                .filter(entry -> !entry.getValue().acknowledged && entry.getValue().openStreams == 0)
                .map(Map.Entry::getKey).toList();
        if (waiting.isEmpty()) {
            return;
        }
        SubtaskKey subtask = quiet ? waiting.get(0) : randomOf(waiting);
        Backend backend = backends.get(subtask);
        Part part = checkpoint.parts.get(subtask);
        if (!quiet) {
            backend.files.keySet().removeIf(name -> random.nextInt(5) == 0); // compacted away
            for (int i = random.nextInt(3); i > 0; i--) {
                backend.files.put(String.format(Locale.ROOT, "%06d.sst", backend.nextFile++), segmentLength());
            }
        }
        for (Map.Entry<String, Integer> file : backend.files.entrySet()) {
            Segment earlier = backend.uploaded.get(file.getKey());
            if (earlier != null && reuse(checkpoint.id, earlier)) {
                part.shared.put(file.getKey(), earlier);
            } else if (!quiet && random.nextInt(8) == 0) {
                openStream(checkpoint, subtask, file.getKey(), file.getValue());
            } else {
                part.shared.put(file.getKey(), filePools.write(filePools.pool(subtask, true, checkpoint.id), subtask,
                        checkpoint.id, file.getValue()));
            }
        }
        for (int i = quiet ? 0 : random.nextInt(3); i > 0; i--) {
            part.exclusive.add(filePools.write(filePools.pool(subtask, false, checkpoint.id), subtask, checkpoint.id,
                    segmentLength()));
        }
        event("snapshot %d of %s: %d segments, %d streams open", checkpoint.id, subtask, part.segments().count(),
                part.openStreams);
        acknowledgeIfDone(checkpoint, subtask);
    }

    boolean reuse(long checkpointId, Segment earlier) {
        boolean expected = earlier.live && earlier.file.reusable;
        boolean reused = ledger.tryReuse(checkpointId, handleOf(earlier));
        require(reused == expected, "reuse of %s by %d: %s", earlier, checkpointId, reused);
        return reused;
    }

    void acknowledgeIfDone(Checkpoint checkpoint, SubtaskKey subtask) {
        Part part = checkpoint.parts.get(subtask);
        if (part.openStreams == 0 && !part.acknowledged && pending.containsKey(checkpoint.id)) {
            ledger.acknowledging(subtask, checkpoint.id);
            acknowledged.computeIfAbsent(subtask, key -> new TreeSet<>()).add(checkpoint.id);
            part.acknowledged = true;
        }
    }

    void openStream(Checkpoint checkpoint, SubtaskKey subtask, String name, int length) {
        PhysicalFile file = filePools.take(filePools.pool(subtask, true, checkpoint.id), subtask, checkpoint.id);
        checkpoint.parts.get(subtask).openStreams++;
        streams.add(new OpenStream(file, checkpoint, subtask, name, length));
    }

    /** A large stream ends: its segment is written, or it aborts (dead bytes stay; a broken file takes no more). */
    void endStream(OpenStream stream) {
        PhysicalFile file = stream.file();
        Part part = stream.checkpoint().parts.get(stream.subtask());
        part.openStreams--;
        if (random.nextInt(4) == 0) {
            file.size += random.nextInt(stream.length());
            file.closing |= random.nextBoolean();
            event("stream of %d for %s aborted in %s", stream.checkpoint().id, stream.subtask(), file.path);
        } else {
            part.shared.put(stream.name(),
                    filePools.append(file, stream.subtask(), stream.checkpoint().id, stream.length()));
            event("stream of %d for %s wrote into %s", stream.checkpoint().id, stream.subtask(), file.path);
        }
        filePools.giveBack(file);
        acknowledgeIfDone(stream.checkpoint(), stream.subtask());
    }

    /** A writer of a checkpoint that ended already (a cancelled snapshot): its segment is referred to by nothing. */
    void lateWrite() {
        if (abortedIds.isEmpty()) {
            return;
        }
        long ended = randomOf(abortedIds);
        SubtaskKey subtask = randomOf(List.of(SUBTASKS));
        filePools.write(filePools.pool(subtask, random.nextBoolean(), ended), subtask, ended, segmentLength());
        event("late write for ended checkpoint %d by %s", ended, subtask);
    }

    /** As the coordinator: retained, notified (each task's notification may be lost), older pending ones aborted. */
    void complete(Checkpoint checkpoint, boolean deliverAll) {
        pending.remove(checkpoint.id);
        List<Checkpoint> subsumed = new ArrayList<>(pending.headMap(checkpoint.id).values());
        subsumed.forEach(older -> pending.remove(older.id));
        retained.addLast(checkpoint);
        while (retained.size() > numRetained) {
            retained.removeFirst();
        }
        long lowestRetainedId = retained.getFirst().id;
        int delivered = 0;
        for (SubtaskKey subtask : SUBTASKS) {
            if (deliverAll || random.nextDouble() >= loss) {
                delivered++;
                notifyCompleted(checkpoint.id, lowestRetainedId);
                backends.get(subtask).uploaded = Map.copyOf(checkpoint.parts.get(subtask).shared);
            }
        }
        event("complete %d, lowest retained %d, %d of 3 notified", checkpoint.id, lowestRetainedId, delivered);
        invariants.check();
        subsumed.forEach(older -> abort(older, deliverAll));
    }

    /** What the manager does on a completion notification. */
    void notifyCompleted(long checkpointId, long lowestRetainedId) {
        lowestRetainedNotified = Math.max(lowestRetainedNotified, lowestRetainedId);
        boolean raised = ledger.checkpointCompleted(checkpointId, lowestRetainedId);
        filePools.retirePools(pool -> pool.checkpointId >= 0 && pool.checkpointId <= checkpointId);
        if (raised) {
            SpaceControl.Pick pick = ledger.controlSpace(spaceControl);
            invariants.everPicked.addAll(pick.files());
            invariants.checkSpaceBound(pick.files());
        }
        filePools.collectDeletable();
    }

    void abort(Checkpoint checkpoint, boolean deliverAll) {
        pending.remove(checkpoint.id);
        abortedIds.add(checkpoint.id);
        int delivered = 0;
        for (SubtaskKey ignored : SUBTASKS) {
            if (deliverAll || random.nextDouble() >= loss) {
                delivered++;
                abortsNotified.add(checkpoint.id);
                if (ledger.checkpointAborted(checkpoint.id)) {
                    filePools.retirePools(pool -> pool.checkpointId == checkpoint.id);
                    filePools.collectDeletable();
                }
            }
        }
        event("abort %d, %d of 3 notified", checkpoint.id, delivered);
    }

    /** Full, broken, or picked to make room: a file takes no more segments. */
    void closeRandomFile() {
        List<PhysicalFile> open = ledger.files().stream().filter(file -> file.owned && !file.closing).toList();
        if (!open.isEmpty()) {
            PhysicalFile file = randomOf(open);
            file.closing = true;
            event("close %s", file);
            filePools.collectDeletable();
        }
    }

    // -------------------------------------------------------------- helpers

    Segment segmentAt(FileSegmentHandle handle) {
        PhysicalFile file = ledger.files().stream().filter(known -> known.path.equals(handle.file())).findFirst()
                .orElseThrow();
        return file.segments.get(handle.offset());
    }

    static FileSegmentHandle handleOf(Segment segment) {
        return new FileSegmentHandle(segment.file.path, segment.offset, segment.length);
    }

    int segmentLength() {
        return random.nextInt(5) == 0 ? 4096 + random.nextInt(12_000) : MIN_SEGMENT_BYTES + random.nextInt(3000);
    }

    <T> T randomOf(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    void event(String format, Object... args) {
        trace.addLast(String.format(Locale.ROOT, format, args));
        if (trace.size() > 30) {
            trace.removeFirst();
        }
    }
}

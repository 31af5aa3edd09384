package io.duraflow.state.filemerging;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/**
 * Seeded runs of a {@link SegmentLedger} with {@link SpaceControl}, in memory: no file system, no
 * threads; the test plays the pools and the writers as {@link FileMergingSnapshotManager} does.
 * Three subtasks restore a checkpoint (files of this job, reusable, and of another job, never
 * reused); then checkpoints are triggered and written (incremental state reused while the ledger
 * lets it, the rest and private state written anew; large streams hold a file for several steps
 * and may end aborted or broken), completed with one to three retained, declined and aborted;
 * cancelled snapshots write late; files are closed at random; any notification may be lost.
 * Merging within or across checkpoints, file size, space limit and loss are drawn per seed.
 *
 * <p>After every step (and at every write, deletion and completion):
 * <ol>
 *   <li>every segment a retained or pending checkpoint refers to is live, and its file known and
 *       never handed out for deletion;</li>
 *   <li>each file's live count and live bytes are those of its live segments (so never negative),
 *       and the usage figures are their sums;</li>
 *   <li>a dead segment stays dead, a file picked by space control stays picked, and a reuse is
 *       allowed exactly when the segment is live in a reusable file;</li>
 *   <li>a segment written for a checkpoint the ledger was told ended is dead at once;</li>
 *   <li>after collecting, no file closed for good, held by no writer and without live segment is
 *       kept; a file is handed out for deletion once, only if created here, not held and without
 *       live segment;</li>
 *   <li>the lowest retained and the latest completed ids never go down;</li>
 *   <li>after a completion that raised the lowest retained id, the bytes not yet freed by picked
 *       files are within the space limit, or every file with dead bytes is picked; and the last
 *       file picked was needed.</li>
 * </ol>
 * Then the run ends one of two ways. Mostly the state stops changing and quiet checkpoints
 * complete with every notification delivered: the live segments are then exactly those the
 * retained checkpoints refer to, no file is kept but theirs and the open ones, the bytes are within
 * the space limit, and once the run ends only the retained checkpoints' files remain. Otherwise the
 * tasks are cancelled amid checkpoints: every live segment left is covered by an acknowledgement
 * of its subtask not known aborted, streams still open end after the run, and every file kept
 * holds a live segment. Either way a segment written after the end dies at once and its file goes.
 */
class SegmentLedgerSimulationTest {
    private static final int STEPS = 150;
    private static final int QUIET = 10;
    private static final long RESTORED_ID = 5;
    private static final int MIN_SEGMENT_BYTES = 256;
    private static final int HEADER = MergedFileFormat.HEADER_BYTES;
    private static final int TRAILER = MergedFileFormat.TRAILER_BYTES;
    private static final SubtaskKey[] SUBTASKS = {new SubtaskKey(1, 0, 2), new SubtaskKey(1, 1, 2),
        new SubtaskKey(2, 0, 1)};
    private static final CheckpointDirectories JOB = CheckpointDirectories.of(FsPath.parse("/checkpoints"), "job");
    private static final CheckpointDirectories OTHER_JOB = CheckpointDirectories.of(FsPath.parse("/checkpoints"),
            "other-job");

    @Property(tries = 100, shrinking = ShrinkingMode.OFF)
    void theLedgerKeepsItsInvariantsUnderRandomCheckpoints(@ForAll long seed) {
        new Simulation(seed).run();
    }

    /** One subtask's part of a checkpoint: its incremental files by name, its private segments, its open streams. */
    private static final class Part {
        final Map<String, Segment> shared = new TreeMap<>();
        final List<Segment> exclusive = new ArrayList<>();
        int openStreams;
        boolean acknowledged;

        Stream<Segment> segments() {
            return Stream.concat(shared.values().stream(), exclusive.stream());
        }
    }

    private static final class Checkpoint {
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
    private static final class Backend {
        final SubtaskKey subtask;
        final TreeMap<String, Integer> files = new TreeMap<>();
        Map<String, Segment> uploaded = Map.of();
        int nextFile;

        Backend(SubtaskKey subtask) {
            this.subtask = subtask;
        }
    }

    /** A large stream of incremental state holding a file; its segment is the file {@code name} of its part. */
    private record OpenStream(PhysicalFile file, Checkpoint checkpoint, SubtaskKey subtask, String name, int length) {}

    private static final class Simulation {
        final long seed;
        final Random random;
        final boolean acrossCheckpoints;
        final long maxFileSizeBytes;
        final int numRetained;
        final double loss;
        final SpaceControl spaceControl;
        final SegmentLedger ledger = new SegmentLedger();
        final Map<SubtaskKey, Backend> backends = new LinkedHashMap<>();
        final Map<String, FilePool> pools = new HashMap<>();
        final TreeMap<Long, Checkpoint> pending = new TreeMap<>();
        final Deque<Checkpoint> retained = new ArrayDeque<>();
        final List<OpenStream> streams = new ArrayList<>();
        final Set<Segment> everDead = Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<PhysicalFile> everPicked = Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<FsPath> deleted = new HashSet<>();
        final List<Long> abortedIds = new ArrayList<>();
        /** What the ledger was told: acknowledgements, aborts, the lowest retained id. */
        final Map<SubtaskKey, TreeSet<Long>> acknowledged = new HashMap<>();
        final Set<Long> abortsNotified = new HashSet<>();
        long lowestRetainedNotified;
        boolean runEnded;
        final Deque<String> trace = new ArrayDeque<>();
        long nextId = RESTORED_ID + 1;
        int nextFileName;
        long lowestRetainedSeen;
        long latestCompletedSeen = -1;

        Simulation(long seed) {
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
                    check();
                }
                if (random.nextInt(3) == 0) {
                    endMidRun();
                } else {
                    quiet();
                    endQuietRun();
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
            check();
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
                    part.shared.put(file.getKey(), write(pool(subtask, true, checkpoint.id), subtask, checkpoint.id,
                            file.getValue()));
                }
            }
            for (int i = quiet ? 0 : random.nextInt(3); i > 0; i--) {
                part.exclusive.add(write(pool(subtask, false, checkpoint.id), subtask, checkpoint.id, segmentLength()));
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
            PhysicalFile file = take(pool(subtask, true, checkpoint.id), subtask, checkpoint.id);
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
                part.shared.put(stream.name(), append(file, stream.subtask(), stream.checkpoint().id, stream.length()));
                event("stream of %d for %s wrote into %s", stream.checkpoint().id, stream.subtask(), file.path);
            }
            giveBack(file);
            acknowledgeIfDone(stream.checkpoint(), stream.subtask());
        }

        /** A writer of a checkpoint that ended already (a cancelled snapshot): its segment is referred to by nothing. */
        void lateWrite() {
            if (abortedIds.isEmpty()) {
                return;
            }
            long ended = randomOf(abortedIds);
            SubtaskKey subtask = randomOf(List.of(SUBTASKS));
            write(pool(subtask, random.nextBoolean(), ended), subtask, ended, segmentLength());
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
            check();
            subsumed.forEach(older -> abort(older, deliverAll));
        }

        /** What the manager does on a completion notification. */
        void notifyCompleted(long checkpointId, long lowestRetainedId) {
            lowestRetainedNotified = Math.max(lowestRetainedNotified, lowestRetainedId);
            boolean raised = ledger.checkpointCompleted(checkpointId, lowestRetainedId);
            retirePools(pool -> pool.checkpointId >= 0 && pool.checkpointId <= checkpointId);
            if (raised) {
                SpaceControl.Pick pick = ledger.controlSpace(spaceControl);
                everPicked.addAll(pick.files());
                checkSpaceBound(pick.files());
            }
            collectDeletable();
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
                        retirePools(pool -> pool.checkpointId == checkpoint.id);
                        collectDeletable();
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
                collectDeletable();
            }
        }

        // -------------------------------------------------------------- the pools, as the test plays them

        FilePool pool(SubtaskKey subtask, boolean shared, long checkpointId) {
            long poolCheckpoint = acrossCheckpoints ? -1 : checkpointId;
            String name = (shared ? "shared " + subtask : "private") + (poolCheckpoint < 0 ? "" : " @" + poolCheckpoint);
            FilePool pool = pools.get(name);
            if (pool == null) {
                pool = new FilePool(name, poolCheckpoint, 1, shared);
                if (poolCheckpoint >= 0 && ledger.hasEnded(poolCheckpoint)) {
                    pool.retired = true; // a late writer: the file closes after use
                } else {
                    pools.put(name, pool);
                }
            }
            return pool;
        }

        void retirePools(Predicate<FilePool> which) {
            for (FilePool pool : new ArrayList<>(pools.values())) {
                if (which.test(pool)) {
                    pool.retired = true;
                    pools.remove(pool.name);
                    pool.files.forEach(file -> file.closing = true);
                }
            }
        }

        /**
         * The file a writer holds from now on: an open file of {@code pool} no one holds, unless
         * space control says the checkpoint would waste it (closed then, collected at the next give
         * back, as the manager does); or a new one.
         */
        PhysicalFile take(FilePool pool, SubtaskKey subtask, long checkpointId) {
            for (PhysicalFile file : pool.files) {
                if (file.closing || file.busy) {
                    continue;
                }
                if (spaceControl.wouldBeWasteful(file, subtask, checkpointId, ledger.files(),
                        ledger.latestCompleted())) {
                    file.closing = true;
                    event("%s: checkpoint %d of %s takes a new file", file.path, checkpointId, subtask);
                    continue;
                }
                file.lastTakenFor = Math.max(file.lastTakenFor, checkpointId);
                file.busy = true;
                return file;
            }
            FsPath directory = pool.shared ? JOB.sharedFileMergingDirectory(subtask.sharedDirectoryName())
                    : JOB.taskOwnedFileMergingDirectory("tm-run");
            PhysicalFile file = new PhysicalFile(directory.resolve("f" + nextFileName++), pool, true);
            file.size = HEADER;
            file.lastTakenFor = checkpointId;
            file.busy = true;
            pool.files.add(file);
            ledger.fileCreated(file);
            return file;
        }

        Segment write(FilePool pool, SubtaskKey subtask, long checkpointId, int length) {
            PhysicalFile file = take(pool, subtask, checkpointId);
            Segment segment = append(file, subtask, checkpointId, length);
            giveBack(file);
            return segment;
        }

        /** The writer holding {@code file} made a segment durable. */
        Segment append(PhysicalFile file, SubtaskKey subtask, long checkpointId, int length) {
            require(file.busy, "appended to though no writer holds it: %s", file);
            Segment segment = new Segment(file, subtask, file.size, length, checkpointId);
            file.size += length + TRAILER;
            ledger.segmentWritten(segment);
            boolean ended = runEnded || abortsNotified.contains(checkpointId) || checkpointId < lowestRetainedNotified;
            require(!ended || !segment.live, "a segment of a checkpoint the ledger knows ended is live: %s", segment);
            return segment;
        }

        void giveBack(PhysicalFile file) {
            file.busy = false;
            if (file.size >= maxFileSizeBytes || file.pool.retired || ledger.hasRunEnded()) {
                file.closing = true;
            }
            collectDeletable();
        }

        void collectDeletable() {
            for (PhysicalFile file : ledger.collectDeletable()) {
                require(file.owned && !file.busy && file.liveSegments == 0, "handed out for deletion: %s", file);
                require(deleted.add(file.path), "deleted twice: %s", file);
                file.pool.files.remove(file);
            }
            for (PhysicalFile file : ledger.files()) {
                boolean closedForGood = file.takesNoMoreSegments() || ledger.hasRunEnded();
                require(file.liveSegments > 0 || file.busy || !closedForGood, "kept though deletable: %s", file);
            }
        }

        // -------------------------------------------------------------- the end

        void quiet() {
            for (OpenStream stream : new ArrayList<>(streams)) {
                streams.remove(stream);
                endStream(stream);
            }
            while (!pending.isEmpty()) {
                abort(pending.firstEntry().getValue(), true);
            }
            for (int i = 0; i < QUIET; i++) {
                Checkpoint checkpoint = trigger(true);
                for (int s = 0; s < SUBTASKS.length; s++) {
                    snapshotStep(checkpoint, true);
                }
                complete(checkpoint, true);
            }
            check();
            Set<Segment> referenced = referenced(retained);
            Set<Segment> live = Collections.newSetFromMap(new IdentityHashMap<>());
            ledger.files().forEach(file -> file.segments.values().stream().filter(s -> s.live).forEach(live::add));
            assertThat(live).as("live segments / referenced by the retained checkpoints")
                    .containsExactlyInAnyOrderElementsOf(referenced);
            for (PhysicalFile file : ledger.files()) {
                boolean holdsReferenced = file.segments.values().stream().anyMatch(referenced::contains);
                assertThat(holdsReferenced || (file.owned && !file.closing)).as("kept for nothing: %s", file).isTrue();
            }
            SpaceUsage usage = ledger.usage();
            if (spaceControl.enabled()) {
                assertThat((double) usage.physicalBytes()).as("bytes at the end, %s", usage)
                        .isLessThanOrEqualTo(spaceControl.maxSpaceAmplification() * usage.liveBytes());
            }
        }

        /** After the quiet checkpoints: only the files of the retained checkpoints outlive the run. */
        void endQuietRun() {
            endRun();
            Set<PhysicalFile> referencedFiles = Collections.newSetFromMap(new IdentityHashMap<>());
            referenced(retained).forEach(segment -> referencedFiles.add(segment.file));
            assertThat(ledger.files()).as("files after the end of the run")
                    .containsExactlyInAnyOrderElementsOf(referencedFiles);
            writeAfterTheEnd();
        }

        /**
         * The tasks are cancelled amid checkpoints: a pending checkpoint every task acknowledged may
         * still complete (its segments stay), the others never will; streams still open end after
         * the run did.
         */
        void endMidRun() {
            pending.values().removeIf(checkpoint -> !checkpoint.acknowledged());
            endRun();
            for (PhysicalFile file : ledger.files()) {
                if (!file.owned) {
                    continue;
                }
                for (Segment segment : file.segments.values()) {
                    TreeSet<Long> ids = acknowledged.getOrDefault(segment.subtask, new TreeSet<>());
                    boolean covered = ids.subSet(segment.createdFor, true, segment.lastUsed, true).stream()
                            .anyMatch(id -> !abortsNotified.contains(id));
                    require(!segment.live || covered, "live after the run, no acknowledgement covers it: %s", segment);
                }
            }
            for (OpenStream stream : new ArrayList<>(streams)) {
                streams.remove(stream);
                endStream(stream);
            }
            check();
            for (PhysicalFile file : ledger.files()) {
                require(file.liveSegments > 0, "kept after the run without live segments: %s", file);
            }
            writeAfterTheEnd();
        }

        void endRun() {
            retirePools(pool -> true);
            runEnded = true;
            ledger.runEnded();
            event("run ended");
            collectDeletable();
            check();
        }

        void writeAfterTheEnd() {
            SubtaskKey subtask = SUBTASKS[0];
            PhysicalFile late = take(pool(subtask, true, nextId), subtask, nextId);
            append(late, subtask, nextId, segmentLength());
            giveBack(late);
            assertThat(deleted).as("the file of a write after the end of the run").contains(late.path);
        }

        // -------------------------------------------------------------- invariants

        /** The invariants after every step (plain checks: they run over every segment thousands of times). */
        void check() {
            Set<PhysicalFile> known = Collections.newSetFromMap(new IdentityHashMap<>());
            known.addAll(ledger.files());
            for (Checkpoint checkpoint : inUse()) {
                for (Part part : checkpoint.parts.values()) {
                    for (Segment segment : part.shared.values()) {
                        checkReferenced(checkpoint, segment, known);
                    }
                    for (Segment segment : part.exclusive) {
                        checkReferenced(checkpoint, segment, known);
                    }
                }
            }
            long physical = 0;
            long live = 0;
            for (PhysicalFile file : ledger.files()) {
                int liveSegments = 0;
                long liveBytes = 0;
                for (Segment segment : file.segments.values()) {
                    if (segment.live) {
                        liveSegments++;
                        liveBytes += segment.length;
                    } else {
                        everDead.add(segment);
                    }
                }
                require(file.liveSegments == liveSegments && file.liveBytes == liveBytes && liveSegments >= 0,
                        "%s counts %d live segments of %d bytes", file, liveSegments, liveBytes);
                require(!deleted.contains(file.path), "deleted, yet known: %s", file);
                physical += file.size;
                live += file.liveBytes;
            }
            for (Iterator<Segment> dead = everDead.iterator(); dead.hasNext(); ) {
                Segment segment = dead.next();
                require(!segment.live, "came back: %s", segment);
                if (!known.contains(segment.file)) {
                    dead.remove(); // its file left the ledger, which never sees it again
                }
            }
            for (PhysicalFile picked : everPicked) {
                require(!picked.reusable, "picked by space control, reusable again: %s", picked);
            }
            SpaceUsage usage = ledger.usage();
            require(usage.equals(new SpaceUsage(physical, live, ledger.files().size(), 0)), "usage %s", usage);
            require(ledger.lowestRetained() >= lowestRetainedSeen && ledger.latestCompleted() >= latestCompletedSeen,
                    "went down: %s, after lowest retained %d, latest completed %d", ledger, lowestRetainedSeen,
                    latestCompletedSeen);
            lowestRetainedSeen = ledger.lowestRetained();
            latestCompletedSeen = ledger.latestCompleted();
        }

        /**
         * Right after space control: the bytes not yet freed by picked files are within the limit, or
         * nothing is left to pick; and no file was picked beyond need (without the last one picked
         * now, the limit was not met).
         */
        void checkSpaceBound(List<PhysicalFile> pickedNow) {
            long physical = 0;
            long live = 0;
            long freedByPicked = 0;
            boolean leftToPick = false;
            for (PhysicalFile file : ledger.files()) {
                physical += file.size;
                live += file.liveBytes;
                if (!file.reusable) {
                    freedByPicked += file.deadBytes();
                } else {
                    leftToPick |= file.deadBytes() > 0;
                }
            }
            double limit = spaceControl.maxSpaceAmplification() * live;
            if (spaceControl.enabled()) {
                require(physical - freedByPicked <= limit || !leftToPick,
                        "%d bytes, %d of them freed by picked files, for %d live bytes", physical, freedByPicked, live);
            }
            if (!pickedNow.isEmpty()) {
                PhysicalFile last = pickedNow.get(pickedNow.size() - 1);
                require(physical - freedByPicked + last.deadBytes() > limit, "%s picked, though not needed", last);
            }
        }

        void checkReferenced(Checkpoint checkpoint, Segment segment, Set<PhysicalFile> known) {
            require(segment.live, "a segment checkpoint %d refers to is dead: %s", checkpoint.id, segment);
            require(known.contains(segment.file) && !segment.file.deleted, "the file of %s is gone", segment);
        }

        List<Checkpoint> inUse() {
            List<Checkpoint> inUse = new ArrayList<>(retained);
            inUse.addAll(pending.values());
            return inUse;
        }

        Set<Segment> referenced(Iterable<Checkpoint> checkpoints) {
            Set<Segment> referenced = Collections.newSetFromMap(new IdentityHashMap<>());
            checkpoints.forEach(checkpoint -> checkpoint.segments().forEach(referenced::add));
            return referenced;
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

        static void require(boolean holds, String format, Object... args) {
            if (!holds) {
                throw new AssertionError(String.format(Locale.ROOT, format, args));
            }
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
}

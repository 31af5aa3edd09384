package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.SegmentLedgerSimulation.QUIET;
import static io.duraflow.state.filemerging.SegmentLedgerSimulation.SUBTASKS;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.state.filemerging.SegmentLedgerSimulation.Checkpoint;
import io.duraflow.state.filemerging.SegmentLedgerSimulation.OpenStream;
import io.duraflow.state.filemerging.SegmentLedgerSimulation.Part;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link SegmentLedgerSimulationTest} checks of a {@link SegmentLedgerSimulation}: the
 * invariants after every step (plain checks: they run over every segment thousands of times), with
 * what they remember from step to step; and the two ways a run ends (quiet checkpoints, or the tasks
 * cancelled amid checkpoints), each with what must hold then.
 */
final class SegmentLedgerInvariants {
    private final SegmentLedgerSimulation sim;
    private final Set<Segment> everDead = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The files space control ever picked: never reusable again. */
    final Set<PhysicalFile> everPicked = Collections.newSetFromMap(new IdentityHashMap<>());
    private long lowestRetainedSeen;
    private long latestCompletedSeen = -1;

    SegmentLedgerInvariants(SegmentLedgerSimulation sim) {
        this.sim = sim;
    }

    // -------------------------------------------------------------- the end

    void quiet() {
        for (OpenStream stream : new ArrayList<>(sim.streams)) {
            sim.streams.remove(stream);
            sim.endStream(stream);
        }
        while (!sim.pending.isEmpty()) {
            sim.abort(sim.pending.firstEntry().getValue(), true);
        }
        for (int i = 0; i < QUIET; i++) {
            Checkpoint checkpoint = sim.trigger(true);
            for (int s = 0; s < SUBTASKS.length; s++) {
                sim.snapshotStep(checkpoint, true);
            }
            sim.complete(checkpoint, true);
        }
        check();
        Set<Segment> referenced = referenced(sim.retained);
        Set<Segment> live = Collections.newSetFromMap(new IdentityHashMap<>());
        sim.ledger.files().forEach(file -> file.segments.values().stream().filter(s -> s.live).forEach(live::add));
        assertThat(live).as("live segments / referenced by the retained checkpoints")
                .containsExactlyInAnyOrderElementsOf(referenced);
        for (PhysicalFile file : sim.ledger.files()) {
            boolean holdsReferenced = file.segments.values().stream().anyMatch(referenced::contains);
            assertThat(holdsReferenced || (file.owned && !file.closing)).as("kept for nothing: %s", file).isTrue();
        }
        SpaceUsage usage = sim.ledger.usage();
        if (sim.spaceControl.enabled()) {
            assertThat((double) usage.physicalBytes()).as("bytes at the end, %s", usage)
                    .isLessThanOrEqualTo(sim.spaceControl.maxSpaceAmplification() * usage.liveBytes());
        }
    }

    /** After the quiet checkpoints: only the files of the retained checkpoints outlive the run. */
    void endQuietRun() {
        endRun();
        Set<PhysicalFile> referencedFiles = Collections.newSetFromMap(new IdentityHashMap<>());
        referenced(sim.retained).forEach(segment -> referencedFiles.add(segment.file));
        assertThat(sim.ledger.files()).as("files after the end of the run")
                .containsExactlyInAnyOrderElementsOf(referencedFiles);
        writeAfterTheEnd();
    }

    /**
     * The tasks are cancelled amid checkpoints: a pending checkpoint every task acknowledged may
     * still complete (its segments stay), the others never will; streams still open end after
     * the run did.
     */
    void endMidRun() {
        sim.pending.values().removeIf(checkpoint -> !checkpoint.acknowledged());
        endRun();
        for (PhysicalFile file : sim.ledger.files()) {
            if (!file.owned) {
                continue;
            }
            for (Segment segment : file.segments.values()) {
                TreeSet<Long> ids = sim.acknowledged.getOrDefault(segment.subtask, new TreeSet<>());
                boolean covered = ids.subSet(segment.createdFor, true, segment.lastUsed, true).stream()
                        .anyMatch(id -> !sim.abortsNotified.contains(id));
                require(!segment.live || covered, "live after the run, no acknowledgement covers it: %s", segment);
            }
        }
        for (OpenStream stream : new ArrayList<>(sim.streams)) {
            sim.streams.remove(stream);
            sim.endStream(stream);
        }
        check();
        for (PhysicalFile file : sim.ledger.files()) {
            require(file.liveSegments > 0, "kept after the run without live segments: %s", file);
        }
        writeAfterTheEnd();
    }

    void endRun() {
        sim.filePools.retirePools(pool -> true);
        sim.runEnded = true;
        sim.ledger.runEnded();
        sim.event("run ended");
        sim.filePools.collectDeletable();
        check();
    }

    void writeAfterTheEnd() {
        SubtaskKey subtask = SUBTASKS[0];
        PhysicalFile late = sim.filePools.take(sim.filePools.pool(subtask, true, sim.nextId), subtask, sim.nextId);
        sim.filePools.append(late, subtask, sim.nextId, sim.segmentLength());
        sim.filePools.giveBack(late);
        assertThat(sim.filePools.deleted).as("the file of a write after the end of the run").contains(late.path);
    }

    // -------------------------------------------------------------- invariants

    /** The invariants after every step (plain checks: they run over every segment thousands of times). */
    void check() {
        Set<PhysicalFile> known = Collections.newSetFromMap(new IdentityHashMap<>());
        known.addAll(sim.ledger.files());
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
        for (PhysicalFile file : sim.ledger.files()) {
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
            require(!sim.filePools.deleted.contains(file.path), "deleted, yet known: %s", file);
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
        SpaceUsage usage = sim.ledger.usage();
        require(usage.equals(new SpaceUsage(physical, live, sim.ledger.files().size(), 0)), "usage %s", usage);
        require(sim.ledger.lowestRetained() >= lowestRetainedSeen
                && sim.ledger.latestCompleted() >= latestCompletedSeen,
                "went down: %s, after lowest retained %d, latest completed %d", sim.ledger, lowestRetainedSeen,
                latestCompletedSeen);
        lowestRetainedSeen = sim.ledger.lowestRetained();
        latestCompletedSeen = sim.ledger.latestCompleted();
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
        for (PhysicalFile file : sim.ledger.files()) {
            physical += file.size;
            live += file.liveBytes;
            if (!file.reusable) {
                freedByPicked += file.deadBytes();
            } else {
                leftToPick |= file.deadBytes() > 0;
            }
        }
        double limit = sim.spaceControl.maxSpaceAmplification() * live;
        if (sim.spaceControl.enabled()) {
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
        List<Checkpoint> inUse = new ArrayList<>(sim.retained);
        inUse.addAll(sim.pending.values());
        return inUse;
    }

    Set<Segment> referenced(Iterable<Checkpoint> checkpoints) {
        Set<Segment> referenced = Collections.newSetFromMap(new IdentityHashMap<>());
        checkpoints.forEach(checkpoint -> checkpoint.segments().forEach(referenced::add));
        return referenced;
    }

    static void require(boolean holds, String format, Object... args) {
        if (!holds) {
            throw new AssertionError(String.format(Locale.ROOT, format, args));
        }
    }
}

package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.SegmentLedgerInvariants.require;
import static io.duraflow.state.filemerging.SegmentLedgerSimulation.HEADER;
import static io.duraflow.state.filemerging.SegmentLedgerSimulation.JOB;
import static io.duraflow.state.filemerging.SegmentLedgerSimulation.TRAILER;

import io.duraflow.fs.FsPath;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The file pools and the writers of a {@link SegmentLedgerSimulation}, played as
 * {@link FileMergingSnapshotManager} plays them: a writer takes a file of its pool (or a new one),
 * appends segments, gives it back; a full file, or one of a retired pool, closes; the files the
 * ledger hands out for deletion are deleted once.
 */
final class SimulatedFilePools {
    private final SegmentLedgerSimulation sim;
    private final Map<String, FilePool> pools = new HashMap<>();
    /** The files handed out for deletion. */
    final Set<FsPath> deleted = new HashSet<>();
    private int nextFileName;

    SimulatedFilePools(SegmentLedgerSimulation sim) {
        this.sim = sim;
    }

    FilePool pool(SubtaskKey subtask, boolean shared, long checkpointId) {
        long poolCheckpoint = sim.acrossCheckpoints ? -1 : checkpointId;
        String name = (shared ? "shared " + subtask : "private") + (poolCheckpoint < 0 ? "" : " @" + poolCheckpoint);
        FilePool pool = pools.get(name);
        if (pool == null) {
            pool = new FilePool(name, poolCheckpoint, 1, shared);
            if (poolCheckpoint >= 0 && sim.ledger.hasEnded(poolCheckpoint)) {
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
            if (sim.spaceControl.wouldBeWasteful(file, subtask, checkpointId, sim.ledger.files(),
                    sim.ledger.latestCompleted())) {
                file.closing = true;
                sim.event("%s: checkpoint %d of %s takes a new file", file.path, checkpointId, subtask);
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
        sim.ledger.fileCreated(file);
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
        sim.ledger.segmentWritten(segment);
        boolean ended = sim.runEnded || sim.abortsNotified.contains(checkpointId)
                || checkpointId < sim.lowestRetainedNotified;
        require(!ended || !segment.live, "a segment of a checkpoint the ledger knows ended is live: %s", segment);
        return segment;
    }

    void giveBack(PhysicalFile file) {
        file.busy = false;
        if (file.size >= sim.maxFileSizeBytes || file.pool.retired || sim.ledger.hasRunEnded()) {
            file.closing = true;
        }
        collectDeletable();
    }

    void collectDeletable() {
        for (PhysicalFile file : sim.ledger.collectDeletable()) {
            require(file.owned && !file.busy && file.liveSegments == 0, "handed out for deletion: %s", file);
            require(deleted.add(file.path), "deleted twice: %s", file);
            file.pool.files.remove(file);
        }
        for (PhysicalFile file : sim.ledger.files()) {
            boolean closedForGood = file.takesNoMoreSegments() || sim.ledger.hasRunEnded();
            require(file.liveSegments > 0 || file.busy || !closedForGood, "kept though deletable: %s", file);
        }
    }
}

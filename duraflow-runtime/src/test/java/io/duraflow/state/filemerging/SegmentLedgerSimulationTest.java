package io.duraflow.state.filemerging;

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
    @Property(tries = 100, shrinking = ShrinkingMode.OFF)
    void theLedgerKeepsItsInvariantsUnderRandomCheckpoints(@ForAll long seed) {
        new SegmentLedgerSimulation(seed).run();
    }
}

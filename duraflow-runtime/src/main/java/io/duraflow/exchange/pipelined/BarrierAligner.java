package io.duraflow.exchange.pipelined;

import java.util.BitSet;

/**
 * Aligned checkpoint barriers over the channels of one gate, as a pure state machine: the gate
 * feeds it the events it reads and applies what it decides through {@link Actions}.
 *
 * <p>Rules:
 * <ol>
 *   <li>Barrier n on a channel while idle, n newer than every checkpoint seen: alignment of n starts.</li>
 *   <li>Barrier n while aligning n: the channel is held (blocked) until alignment ends.</li>
 *   <li>Alignment of n ends when every channel delivered barrier n or finished (a finished channel
 *       counts as aligned): n is reported as aligned once, then the held channels are released.</li>
 *   <li>Barrier m &gt; n while aligning n: n is aborted (reported, channels released) and alignment of m starts.</li>
 *   <li>Cancel marker n while aligning n, or for a newer checkpoint: the checkpoint being aligned is
 *       aborted and released; a newer n is reported aborted too, once, so the task tells its operators.</li>
 *   <li>A barrier or cancel marker of a checkpoint not newer than the last one seen (completed,
 *       aborted, or being aligned and already accounted for) is ignored, so duplicates never report twice.</li>
 *   <li>The JobManager's abort of n while aligning n ends the alignment like a cancel marker; an
 *       abort of an n newer than every checkpoint seen makes its barriers ignored (rule 6) when they come.</li>
 * </ol>
 * Invariant: a channel is held only while aligning, and only if it delivered the barrier being aligned.
 */
final class BarrierAligner {
    /** What the gate does for the aligner; called on the task thread, in order. */
    interface Actions {
        void hold(int channel);

        void releaseAll();

        void aligned(NetworkEvent.CheckpointBarrier barrier) throws Exception;

        void aborted(long checkpointId, String reason) throws Exception;
    }

    private enum State {
        /** No checkpoint is being aligned. */
        IDLE,
        /** Some channels delivered the barrier of {@link #currentCheckpointId}, others not yet. */
        ALIGNING
    }

    private final int channelCount;
    private final Actions actions;
    private final BitSet barrierReceived;
    private final BitSet finished;
    private State state = State.IDLE;
    /** The newest checkpoint seen: being aligned, aligned, or aborted. -1 before the first. */
    private long currentCheckpointId = -1;
    private NetworkEvent.CheckpointBarrier pendingBarrier;

    BarrierAligner(int channelCount, Actions actions) {
        this.channelCount = channelCount;
        this.actions = actions;
        this.barrierReceived = new BitSet(channelCount);
        this.finished = new BitSet(channelCount);
    }

    void onBarrier(int channel, NetworkEvent.CheckpointBarrier barrier) throws Exception {
        long id = barrier.checkpointId();
        if (id < currentCheckpointId || (id == currentCheckpointId && state == State.IDLE)) {
            return; // rule 6
        }
        if (id > currentCheckpointId) {
            if (state == State.ALIGNING) {
                abort("barrier of newer checkpoint " + id + " arrived on channel " + channel
                        + " before alignment of checkpoint " + currentCheckpointId + " completed"); // rule 4
            }
            state = State.ALIGNING; // rule 1
            currentCheckpointId = id;
            pendingBarrier = barrier;
            barrierReceived.clear();
        }
        barrierReceived.set(channel); // rule 2
        actions.hold(channel);
        completeIfAligned();
    }

    void onCancelMarker(int channel, long checkpointId) throws Exception {
        if (checkpointId < currentCheckpointId || (checkpointId == currentCheckpointId && state == State.IDLE)) {
            return; // rule 6
        }
        String reason = "checkpoint " + checkpointId + " was cancelled upstream (cancel marker on channel " + channel + ")";
        if (state == State.ALIGNING && checkpointId == currentCheckpointId) {
            abort(reason); // rule 5
            return;
        }
        if (state == State.ALIGNING) {
            abort("checkpoint " + checkpointId + " was cancelled upstream before alignment of checkpoint "
                    + currentCheckpointId + " completed");
        }
        currentCheckpointId = checkpointId;
        actions.aborted(checkpointId, reason); // rule 5: a newer checkpoint aborted before any of its barriers came
    }

    /**
     * The JobManager says checkpoint {@code checkpointId} was aborted (another task declined, it
     * expired, ...): if it is being aligned, alignment ends and the held channels are released at
     * once instead of waiting for barriers that may never come (rule 7); if none of its barriers
     * came yet, they will be ignored when they do. Reported aborted once, like a cancel marker.
     */
    void onAbortNotified(long checkpointId, String reason) throws Exception {
        if (state == State.ALIGNING && checkpointId == currentCheckpointId) {
            abort(reason);
        } else if (state == State.IDLE && checkpointId > currentCheckpointId) {
            currentCheckpointId = checkpointId;
            actions.aborted(checkpointId, reason);
        }
    }

    void onChannelFinished(int channel) throws Exception {
        finished.set(channel);
        if (state == State.ALIGNING) {
            completeIfAligned(); // rule 3
        }
    }

    private void completeIfAligned() throws Exception {
        BitSet done = (BitSet) barrierReceived.clone();
        done.or(finished);
        if (done.cardinality() < channelCount) {
            return;
        }
        state = State.IDLE;
        NetworkEvent.CheckpointBarrier barrier = pendingBarrier;
        pendingBarrier = null;
        barrierReceived.clear();
        // Reported before the release: the task snapshots before any record after the barrier is read.
        actions.aligned(barrier);
        actions.releaseAll();
    }

    private void abort(String reason) throws Exception {
        state = State.IDLE;
        long id = currentCheckpointId;
        pendingBarrier = null;
        barrierReceived.clear();
        actions.releaseAll();
        actions.aborted(id, reason);
    }

    boolean isAligning() {
        return state == State.ALIGNING;
    }

    long currentCheckpointId() {
        return currentCheckpointId;
    }
}

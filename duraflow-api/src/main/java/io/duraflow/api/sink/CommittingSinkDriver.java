package io.duraflow.api.sink;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a streaming sink task does with a {@link TwoPhaseCommittingSink}, as an object with no
 * thread and no I/O of its own: the runtime's sink operator calls it on the task thread and
 * stores what {@link #snapshotState} returns as the UNION list state of the checkpoint (one
 * element per committable, written with {@link TwoPhaseCommittingSink#committableSerializer()}),
 * and {@link #jobLineage()} as a second UNION list state (one job id per element).
 *
 * <p>Committables wait, per checkpoint id, until a checkpoint at or after theirs completes; every
 * snapshot holds all that still wait, so a restore from any completed checkpoint commits
 * everything prepared up to it that might not have been committed.
 */
public final class CommittingSinkDriver<T, C> implements AutoCloseable,
        io.duraflow.api.checkpoint.CheckpointAvailabilityProvider {
    private final CommittingSinkWriter<T, C> writer;
    private final Committer<C> committer;
    private final TwoPhaseCommittingSink<T, C> sink;
    private final SinkContext context;
    private final Set<String> jobLineage;
    /** Committables by the checkpoint that prepared them, not yet known to be committed. */
    private final NavigableMap<Long, List<C>> waiting = new TreeMap<>();
    private long lastPreparedCheckpointId = Long.MIN_VALUE;

    private CommittingSinkDriver(TwoPhaseCommittingSink<T, C> sink, SinkContext context,
            CommittingSinkWriter<T, C> writer, Committer<C> committer, Set<String> jobLineage) {
        this.sink = sink;
        this.context = context;
        this.writer = writer;
        this.committer = committer;
        this.jobLineage = jobLineage;
    }

    /** {@link #open(TwoPhaseCommittingSink, SinkContext, List, Set)} with no restored job lineage. */
    public static <T, C> CommittingSinkDriver<T, C> open(TwoPhaseCommittingSink<T, C> sink, SinkContext context,
            List<C> restoredCommittables) throws Exception {
        return open(sink, context, restoredCommittables, Set.of());
    }

    /**
     * Starts a subtask: commits {@code restoredCommittables} (the union of all subtasks' in the
     * restored checkpoint; empty when there is none), lets the sink clean up leftovers of earlier
     * attempts and of the jobs in {@code restoredJobLineage} (the restored {@link #jobLineage()}s),
     * and creates the writer.
     */
    public static <T, C> CommittingSinkDriver<T, C> open(TwoPhaseCommittingSink<T, C> sink, SinkContext context,
            List<C> restoredCommittables, Set<String> restoredJobLineage) throws Exception {
        Committer<C> committer = sink.createCommitter(context);
        try {
            if (!restoredCommittables.isEmpty()) {
                committer.commit(restoredCommittables);
            }
            sink.cleanUpLeftovers(context, restoredCommittables, Set.copyOf(restoredJobLineage));
            Set<String> lineage = new TreeSet<>(restoredJobLineage);
            lineage.add(context.jobId());
            return new CommittingSinkDriver<>(sink, context, sink.createWriter(context), committer,
                    Collections.unmodifiableSet(lineage));
        } catch (Exception | Error e) {
            committer.close();
            throw e;
        }
    }

    public void write(T record) throws Exception {
        writer.write(record);
    }

    /** Whether the writer can take its part of checkpoint {@code checkpointId} now. */
    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return writer.isSnapshotAvailable(checkpointId);
    }

    /**
     * Barrier {@code checkpointId} passes: prepares the writer's data and returns the operator
     * state of this checkpoint, every committable not committed yet, oldest first.
     *
     * @throws IllegalStateException if checkpoint ids do not increase
     */
    public List<C> snapshotState(long checkpointId) throws Exception {
        if (checkpointId <= lastPreparedCheckpointId) {
            throw new IllegalStateException("checkpoint " + checkpointId + " reached the sink after checkpoint "
                    + lastPreparedCheckpointId + "; checkpoint ids must increase");
        }
        lastPreparedCheckpointId = checkpointId;
        List<C> prepared = writer.prepareCommit(checkpointId);
        if (!prepared.isEmpty()) {
            waiting.put(checkpointId, List.copyOf(prepared));
        }
        List<C> state = new ArrayList<>();
        waiting.values().forEach(state::addAll);
        return state;
    }

    /** Checkpoint {@code checkpointId} completed: commits everything prepared up to it. */
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        NavigableMap<Long, List<C>> due = waiting.headMap(checkpointId, true);
        if (due.isEmpty()) {
            return;
        }
        List<C> committables = new ArrayList<>();
        for (Map.Entry<Long, List<C>> entry : due.entrySet()) {
            committables.addAll(entry.getValue());
        }
        committer.commit(committables);
        // Forgotten only once committed: a failed commit is retried by the next completion or the restore.
        due.clear();
    }

    /** The checkpoint id under which a subtask of a job that takes no checkpoints prepares and commits at its end. */
    public static final long END_OF_INPUT = Long.MAX_VALUE;

    /**
     * The input ended and the job takes no checkpoints: none will ever prepare or commit what the
     * writer holds, so it is prepared and committed now, under {@link #END_OF_INPUT}, and what
     * nothing will commit any more is removed. Without checkpoints there is no restore either:
     * a subtask that fails before its end commits nothing.
     */
    public void commitAtEndWithoutCheckpoints() throws Exception {
        snapshotState(END_OF_INPUT);
        notifyCheckpointComplete(END_OF_INPUT);
        cleanUpAtEnd();
    }

    /**
     * The input ended and a checkpoint taken after the end completed and was committed here (the
     * subtask is about to finish): lets the sink remove, once more, what nothing will commit any
     * more, e.g. files a fenced-off attempt or a force-cancelled earlier job of the lineage still
     * created after this subtask's start. Safe then: this writer prepared everything and wrote
     * nothing since, and every committable it prepared is committed. Does nothing while a
     * committable still waits (its files must stay for the checkpoint that holds it).
     */
    public void cleanUpAtEnd() throws Exception {
        if (waiting.isEmpty()) {
            sink.cleanUpLeftovers(context, List.of(), jobLineage);
        }
    }

    /**
     * What a checkpoint stores beside the committables: this job's id and every id of the restored
     * lineage, so that a job restored from it, also under another job id, knows whose leftovers it
     * may remove.
     */
    public Set<String> jobLineage() {
        return jobLineage;
    }

    /** Committables prepared and not committed yet (what the next snapshot holds besides new ones). */
    public int waitingCount() {
        return waiting.values().stream().mapToInt(List::size).sum();
    }

    /** Closes writer and committer; data of committables prepared so far stays for a restore to commit. */
    @Override
    public void close() throws Exception {
        try {
            writer.close();
        } finally {
            committer.close();
        }
    }
}

package io.duraflow.jobmanager.jobmaster.coordination;

import com.google.protobuf.ByteString;
import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator coordinator of a source: runs the split enumerator, answers readers' split requests,
 * delivers pushed splits and gives the splits of a reset subtask back, so every split is read by
 * exactly one finished attempt. Every field is touched on the JobManager's main thread only; the
 * enumerator's start and periodic work run elsewhere and hand over in a mail. See
 * docs/design/batch-recovery.md#sourcecoordinator.
 */
public final class SourceCoordinator implements OperatorCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(SourceCoordinator.class);

    /** The current attempts of the source's subtasks, as the job master sees them. */
    public interface SubtaskGateway {
        /** The current attempt runs: its TaskManager confirmed it, so events reach it. */
        boolean isRunning(int subtask);

        /** The current attempt has finished: it reads nothing more. */
        boolean hasFinished(int subtask);

        /** Delivers an event to the current attempt, which runs. */
        void send(int subtask, OperatorEvent event);
    }

    /**
     * Hears of every change of who holds which split. The enumerator's state is not taken here:
     * its size grows with the splits left, so taking it at every change would cost quadratic
     * time and log space; whoever records the changes takes a {@link #snapshot} when it needs one.
     */
    public interface AssignmentListener {
        /** The splits were given to the current attempt of the subtask (delivered or pending). */
        void assigned(int subtask, List<byte[]> splits) throws Exception;

        void returned(int subtask, int count) throws Exception;

        AssignmentListener NONE = new AssignmentListener() {
            @Override
            public void assigned(int subtask, List<byte[]> splits) {}

            @Override
            public void returned(int subtask, int count) {}
        };
    }

    private final String name;
    private final Source<?, SourceSplit> source;
    private final SplitSerializer<SourceSplit> serializer;
    private final int parallelism;
    private final SubtaskGateway subtasks;
    private final AssignmentListener listener;
    /** Splits delivered to each subtask's current attempt. */
    private final Map<Integer, List<SourceSplit>> assigned = new HashMap<>();
    /** Splits given to a subtask whose current attempt does not run yet. */
    private final Map<Integer, List<SourceSplit>> pending = new TreeMap<>();
    /** Subtasks told there are no more splits while they did not run. */
    private final Set<Integer> noMoreSplitsPending = new TreeSet<>();
    /** Assignments the listener has not heard of yet, in order. */
    private final Map<Integer, List<byte[]>> unreported = new LinkedHashMap<>();
    private SplitEnumerator<SourceSplit> enumerator;
    /** Whether the source's enumerator can snapshot mid-job; decided by the first one, in its {@link #start}. */
    private boolean batchSnapshots = true;
    /** Whether the start was handed over: assignments are delivered from then on. */
    private boolean live;
    private final EnumeratorPeriodicWork periodicWork;

    /**
     * Where an enumerator's {@link SplitEnumeratorContext#callAsync} work runs: {@code worker} (user
     * code, off the main thread), its result handed over on {@code mainThread}; a handler that
     * throws is reported to {@code failed} (the job fails over) instead of escaping the main thread.
     */
    public record AsyncServices(Mailbox mainThread, Executor worker, Consumer<Throwable> failed) {}

    @SuppressWarnings("unchecked")
    public SourceCoordinator(String name, Source<?, ?> source, int parallelism, SubtaskGateway subtasks,
            AssignmentListener listener) {
        this.name = name;
        this.source = (Source<?, SourceSplit>) source;
        this.serializer = this.source.splitSerializer();
        this.parallelism = parallelism;
        this.subtasks = subtasks;
        this.listener = listener;
        this.periodicWork = new EnumeratorPeriodicWork(name, this::reportAssignments);
    }

    /** Lets the enumerator ask for periodic work; before {@link #start}. */
    public void async(AsyncServices services) {
        periodicWork.services(services);
    }

    /** The enumerator's first start, to run off the main thread (see {@link EnumeratorStart}). */
    @Override
    public OperatorCoordinator.Start start() {
        return new EnumeratorStart(periodicWork.available());
    }

    /**
     * The start was handed over: from now on assignments are delivered. They are reported by
     * {@link #reportAssignments} once the job runs (not before: a recovery may still replace the
     * enumerator, and a run that starts over logs its RunStarted first).
     */
    private void goLive() {
        live = true;
        periodicWork.goLive();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            if (subtasks.isRunning(subtask)) {
                deliverPending(subtask);
            }
        }
    }

    /** Whether the source's split enumerator can snapshot its state mid-job (known once its start is handed over). */
    public boolean supportsBatchSnapshot() {
        return batchSnapshots;
    }

    /**
     * The enumerator's first start. {@link #run} runs off the main thread (a source's enumerator
     * lists its input there, which may take long) and touches none of the coordinator's state:
     * what the enumerator asks for meanwhile is checked at once (a wrong call fails the start, as
     * it would on the main thread) and kept here. The thread that runs it owns it until it ends;
     * then {@link #handOver}, in a mail on the main thread, makes the enumerator the coordinator's,
     * replays what it asked for and goes live; or a start that is never handed over is {@link
     * #discard discarded}.
     */
    private final class EnumeratorStart implements OperatorCoordinator.Start {
        /** Taken on the main thread when the start was made: whether periodic work may be asked for. */
        private final boolean asyncAvailable;
        private final EnumeratorContext context = new EnumeratorContext(this);
        /** What the enumerator asked for while it started, in order; replayed on the main thread. */
        private final List<Runnable> asked = new ArrayList<>();
        private SplitEnumerator<SourceSplit> started;
        private boolean startedBatchSnapshots;

        EnumeratorStart(boolean asyncAvailable) {
            this.asyncAvailable = asyncAvailable;
        }

        @Override
        public void run() throws Exception {
            started = source.createEnumerator(context);
            startedBatchSnapshots = started.supportsBatchSnapshot();
            started.start();
        }

        @Override
        public void handOver() {
            enumerator = started;
            batchSnapshots = startedBatchSnapshots;
            context.starting = null;
            // Not live yet: assignments wait as pending and periodic work until goLive, as they
            // would have had the start run here.
            asked.forEach(Runnable::run);
            asked.clear();
            goLive();
        }

        @Override
        public void discard() throws Exception {
            if (started != null) {
                started.close();
            }
        }
    }

    /**
     * What the enumerator may do. While its first start runs off the main thread ({@code
     * starting} set), calls are checked and kept in the start; after the hand-over, and for every
     * later enumerator, they act at once on the main thread.
     */
    private final class EnumeratorContext implements SplitEnumeratorContext<SourceSplit> {
        /** The start whose thread calls now; null once it was handed over (then only the main thread calls). */
        private EnumeratorStart starting;

        EnumeratorContext(EnumeratorStart starting) {
            this.starting = starting;
        }

        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void assignSplit(SourceSplit split, int subtask) {
            if (starting == null) {
                assign(split, subtask);
                return;
            }
            checkSubtask(subtask, "assigned split " + split.splitId() + " to");
            byte[] bytes = serializer.toBytes(split);
            starting.asked.add(() -> place(split, subtask, bytes));
        }

        @Override
        public <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs,
                long periodMs) {
            if (starting == null) {
                periodicWork.call(work, handler, initialDelayMs, periodMs);
                return;
            }
            periodicWork.check(starting.asyncAvailable, initialDelayMs, periodMs);
            starting.asked.add(() -> periodicWork.call(work, handler, initialDelayMs, periodMs));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            checkSubtask(subtask, "signalled no more splits to");
            if (starting == null) {
                noMoreSplits(subtask);
            } else {
                starting.asked.add(() -> noMoreSplits(subtask));
            }
        }
    }

    private void noMoreSplits(int subtask) {
        if (delivers(subtask)) {
            sendNoMoreSplits(subtask);
        } else {
            noMoreSplitsPending.add(subtask);
        }
    }

    private void assign(SourceSplit split, int subtask) {
        checkSubtask(subtask, "assigned split " + split.splitId() + " to");
        if (live && subtasks.hasFinished(subtask)) {
            throw new IllegalStateException("the split enumerator of " + name + " assigned split " + split.splitId()
                    + " to subtask " + subtask + ", which has finished and would never read it");
        }
        place(split, subtask, serializer.toBytes(split));
    }

    /** Records an assignment: delivered if the subtask's current attempt runs, else pending. */
    private void place(SourceSplit split, int subtask, byte[] bytes) {
        unreported.computeIfAbsent(subtask, k -> new ArrayList<>()).add(bytes);
        if (delivers(subtask)) {
            LOG.debug("{}: split {} to subtask {}", name, split.splitId(), subtask);
            assigned.computeIfAbsent(subtask, k -> new ArrayList<>()).add(split);
            subtasks.send(subtask, OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder()
                    .addSplits(ByteString.copyFrom(bytes))).build());
        } else {
            LOG.debug("{}: split {} to subtask {}, pending until it runs", name, split.splitId(), subtask);
            pending.computeIfAbsent(subtask, k -> new ArrayList<>()).add(split);
        }
    }

    /** Whether an event for the subtask reaches its current attempt now. */
    private boolean delivers(int subtask) {
        return live && subtasks.isRunning(subtask);
    }

    private void checkSubtask(int subtask, String what) {
        if (subtask < 0 || subtask >= parallelism) {
            throw new IllegalArgumentException("the split enumerator of " + name + " " + what + " subtask " + subtask
                    + ", but the source has parallelism " + parallelism);
        }
    }

    private void sendNoMoreSplits(int subtask) {
        subtasks.send(subtask, OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance()).build());
    }

    /** Sends what waits for a subtask that now runs: its pending splits, then a pending NoMoreSplits. */
    private void deliverPending(int subtask) {
        List<SourceSplit> waiting = pending.remove(subtask);
        if (waiting != null && !waiting.isEmpty()) {
            LOG.info("{}: {} pending splits go to subtask {} now that it runs", name, waiting.size(), subtask);
            AddSplits.Builder event = AddSplits.newBuilder();
            for (SourceSplit split : waiting) {
                event.addSplits(ByteString.copyFrom(serializer.toBytes(split)));
            }
            assigned.computeIfAbsent(subtask, k -> new ArrayList<>()).addAll(waiting);
            subtasks.send(subtask, OperatorEvent.newBuilder().setAddSplits(event).build());
        }
        if (noMoreSplitsPending.remove(subtask)) {
            sendNoMoreSplits(subtask);
        }
    }

    /**
     * Tells the listener of the assignments it has not heard of. The job master calls this when
     * the job starts (after any recovery is recorded) and after a reset is recorded, so that
     * splits pushed back to the reset subtask count for its new attempt.
     */
    public void reportAssignments() throws Exception {
        if (!live || unreported.isEmpty()) {
            return;
        }
        List<Map.Entry<Integer, List<byte[]>>> entries = new ArrayList<>(unreported.entrySet());
        unreported.clear();
        for (Map.Entry<Integer, List<byte[]>> entry : entries) {
            listener.assigned(entry.getKey(), entry.getValue());
        }
    }

    /** The subtask's current attempt runs now (its TaskManager confirmed it): deliver what waits for it. */
    public void subtaskRunning(int subtask) throws Exception {
        if (live) {
            deliverPending(subtask);
            reportAssignments();
        }
    }

    @Override
    public void handleEventFromOperator(int subtask, OperatorEvent event) throws Exception {
        if (event.getEventCase() == OperatorEvent.EventCase.REQUEST_SPLIT) {
            deliverPending(subtask);
            enumerator.handleSplitRequest(subtask);
            reportAssignments();
        } else {
            throw new IllegalArgumentException("source coordinator " + name + " cannot handle " + event.getEventCase());
        }
    }

    /**
     * The subtask's attempt was replaced by a new one, which does not run yet: the old attempt's
     * delivered and pending splits go back to the enumerator, and a pending NoMoreSplits is
     * forgotten. Splits the enumerator hands out again in response wait for the new attempt and
     * are reported by the next {@link #reportAssignments}, once the reset is recorded.
     */
    @Override
    public void subtaskReset(int subtask) throws Exception {
        List<SourceSplit> splits = new ArrayList<>(assigned.getOrDefault(subtask, List.of()));
        splits.addAll(pending.getOrDefault(subtask, List.of()));
        assigned.remove(subtask);
        pending.remove(subtask);
        noMoreSplitsPending.remove(subtask);
        // Reported to nobody yet, and given back now: the listener never needs to hear of them.
        List<byte[]> unheard = unreported.remove(subtask);
        int heard = splits.size() - (unheard == null ? 0 : unheard.size());
        if (splits.isEmpty()) {
            return;
        }
        LOG.info("{}: {} splits of subtask {} go back to the enumerator", name, splits.size(), subtask);
        if (heard > 0) {
            listener.returned(subtask, heard);
        }
        enumerator.addSplitsBack(splits, subtask);
    }

    /** Checkpoint {@code checkpointId} completed: the enumerator may drop what it kept for it. */
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
        return enumerator.isSnapshotAvailable(checkpointId);
    }

    @Override
    public byte[] snapshot(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    /** Recovery: continues from a logged enumerator state; forgets every assignment. */
    @Override
    public void resetToSnapshot(long checkpointId, byte[] state) throws Exception {
        periodicWork.stop();
        if (enumerator != null) {
            enumerator.close();
        }
        forgetAssignments();
        enumerator = source.restoreEnumerator(new EnumeratorContext(null), state);
        enumerator.start();
    }

    /**
     * Streaming restart without a checkpoint to go back to: every split goes out again from a new
     * enumerator, as at the job's first start (the readers restart with empty state too). Runs the
     * enumerator's start on the main thread, like the rest of its work during a restart.
     */
    public void resetToInitial() throws Exception {
        periodicWork.stop();
        if (enumerator != null) {
            enumerator.close();
        }
        forgetAssignments();
        enumerator = source.createEnumerator(new EnumeratorContext(null));
        enumerator.start();
    }

    private void forgetAssignments() {
        assigned.clear();
        pending.clear();
        noMoreSplitsPending.clear();
        unreported.clear();
    }

    /** Recovery: splits a subtask held when the old leader died go back to the (restored) enumerator. */
    public void returnSplits(int subtask, List<byte[]> splits) throws Exception {
        List<SourceSplit> decoded = new ArrayList<>();
        for (byte[] bytes : splits) {
            decoded.add(serializer.fromBytes(bytes));
        }
        if (!decoded.isEmpty()) {
            listener.returned(subtask, decoded.size());
            enumerator.addSplitsBack(decoded, subtask);
        }
    }

    /**
     * Recovery of a source whose enumerator cannot snapshot and all of whose subtasks finished
     * under an earlier leader: every split was read, but a new enumerator would hand them all out
     * again. It is replaced by one without splits, which hands out only splits given back later
     * (a restored subtask runs again because its output is lost). Still no snapshot is taken.
     */
    public void restoreDrained() throws Exception {
        periodicWork.stop();
        if (enumerator != null) {
            enumerator.close();
        }
        forgetAssignments();
        enumerator = new QueueSplitEnumerator<>(new EnumeratorContext(null), serializer, List.of());
        enumerator.start();
    }

    /**
     * Recovery: a restored (finished) subtask read these splits; remembered so that they go back
     * to the enumerator if its output is lost later.
     */
    public void markAssigned(int subtask, List<byte[]> splits) {
        List<SourceSplit> held = assigned.computeIfAbsent(subtask, k -> new ArrayList<>());
        for (byte[] bytes : splits) {
            held.add(serializer.fromBytes(bytes));
        }
    }

    @Override
    public void close() throws Exception {
        periodicWork.stop();
        if (enumerator != null) {
            enumerator.close();
        }
    }
}

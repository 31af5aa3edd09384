package io.duraflow.jobmanager.scheduler;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator coordinator of a source: runs the split enumerator on the JobManager's main
 * thread, answers readers' split requests, and gives the splits of a reset subtask back.
 *
 * <p>It remembers which splits each subtask's current attempt was given. When that attempt is
 * reset (it failed, or its finished output was lost), those splits go back to the enumerator,
 * so every split is read by exactly one finished attempt.
 *
 * <p>An enumerator whose {@link SplitEnumerator#supportsBatchSnapshot()} is false must not be
 * asked for its state while the job runs ({@link #supportsBatchSnapshot()} tells).
 */
public final class SourceCoordinator implements OperatorCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(SourceCoordinator.class);

    /** Delivers an event to the current attempt of a subtask. */
    public interface EventSender {
        void send(int subtask, OperatorEvent event);
    }

    /**
     * Hears of every change of who holds which split. The enumerator's state is not taken here:
     * its size grows with the splits left, so taking it at every change would cost quadratic
     * time and log space; whoever records the changes takes a {@link #snapshot} when it needs one.
     */
    public interface AssignmentListener {
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
    private final EventSender sender;
    private final AssignmentListener listener;
    private final Map<Integer, List<SourceSplit>> assigned = new HashMap<>();
    /** Splits handed out while the enumerator handles one request; reported once it returns. */
    private final Map<Integer, List<byte[]>> handedOut = new java.util.LinkedHashMap<>();
    private SplitEnumerator<SourceSplit> enumerator;
    /** Whether the source's enumerator can snapshot mid-job; decided by the first one, in {@link #start}. */
    private boolean batchSnapshots = true;

    public SourceCoordinator(String name, Source<?, ?> source, int parallelism, EventSender sender) {
        this(name, source, parallelism, sender, AssignmentListener.NONE);
    }

    @SuppressWarnings("unchecked")
    public SourceCoordinator(String name, Source<?, ?> source, int parallelism, EventSender sender,
            AssignmentListener listener) {
        this.name = name;
        this.source = (Source<?, SourceSplit>) source;
        this.serializer = this.source.splitSerializer();
        this.parallelism = parallelism;
        this.sender = sender;
        this.listener = listener;
    }

    @Override
    public void start() throws Exception {
        enumerator = source.createEnumerator(context());
        batchSnapshots = enumerator.supportsBatchSnapshot();
        enumerator.start();
    }

    /** Whether the source's split enumerator can snapshot its state mid-job (known after {@link #start}). */
    public boolean supportsBatchSnapshot() {
        return batchSnapshots;
    }


    private SplitEnumeratorContext<SourceSplit> context() {
        return new SplitEnumeratorContext<>() {
            @Override
            public int parallelism() {
                return parallelism;
            }

            @Override
            public void assignSplit(SourceSplit split, int subtask) {
                assigned.computeIfAbsent(subtask, k -> new ArrayList<>()).add(split);
                LOG.debug("{}: split {} to subtask {}", name, split.splitId(), subtask);
                byte[] bytes = serializer.toBytes(split);
                handedOut.computeIfAbsent(subtask, k -> new ArrayList<>()).add(bytes);
                sender.send(subtask, OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder()
                        .addSplits(ByteString.copyFrom(bytes))).build());
            }

            @Override
            public void signalNoMoreSplits(int subtask) {
                sender.send(subtask, OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance())
                        .build());
            }
        };
    }

    @Override
    public void handleEventFromOperator(int subtask, OperatorEvent event) throws Exception {
        if (event.getEventCase() == OperatorEvent.EventCase.REQUEST_SPLIT) {
            handedOut.clear();
            enumerator.handleSplitRequest(subtask);
            if (!handedOut.isEmpty()) {
                for (Map.Entry<Integer, List<byte[]>> entry : handedOut.entrySet()) {
                    listener.assigned(entry.getKey(), entry.getValue());
                }
                handedOut.clear();
            }
        } else {
            throw new IllegalArgumentException("source coordinator " + name + " cannot handle " + event.getEventCase());
        }
    }

    @Override
    public void subtaskReset(int subtask) throws Exception {
        List<SourceSplit> splits = assigned.remove(subtask);
        if (splits != null && !splits.isEmpty()) {
            LOG.info("{}: {} splits of subtask {} go back to the enumerator", name, splits.size(), subtask);
            enumerator.addSplitsBack(splits, subtask);
            listener.returned(subtask, splits.size());
        }
    }

    @Override
    public byte[] snapshot(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void resetToSnapshot(long checkpointId, byte[] state) throws Exception {
        if (enumerator != null) {
            enumerator.close();
        }
        assigned.clear();
        enumerator = source.restoreEnumerator(context(), state);
        enumerator.start();
    }

    /** Recovery: splits a subtask held when the old leader died go back to the (restored) enumerator. */
    public void returnSplits(int subtask, List<byte[]> splits) throws Exception {
        List<SourceSplit> decoded = new ArrayList<>();
        for (byte[] bytes : splits) {
            decoded.add(serializer.fromBytes(bytes));
        }
        if (!decoded.isEmpty()) {
            enumerator.addSplitsBack(decoded, subtask);
            listener.returned(subtask, decoded.size());
        }
    }

    /**
     * Recovery of a source whose enumerator cannot snapshot and all of whose subtasks finished
     * under an earlier leader: every split was read, but a new enumerator would hand them all out
     * again. It is replaced by one without splits, which hands out only splits given back later
     * (a restored subtask runs again because its output is lost). Still no snapshot is taken.
     */
    public void restoreDrained() throws Exception {
        if (enumerator != null) {
            enumerator.close();
        }
        assigned.clear();
        enumerator = new QueueSplitEnumerator<>(context(), serializer, List.of());
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
        if (enumerator != null) {
            enumerator.close();
        }
    }
}

package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.api.dag.Operation;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.util.HashMap;
import java.util.Map;

/**
 * The JobManager's side of watermark alignment: per alignment group, the watermark each source
 * reader of the group (over every source of the job whose strategy names the group) last
 * reported, and their minimum, which is announced to the readers. A reader more than its maximum
 * drift ahead of the minimum stops reading until the minimum catches up (see {@code
 * SourceAlignment} in the TaskManager).
 *
 * <p>The rules:
 * <ol>
 *   <li>A reader counts from its first report on. Until then it holds nothing back, so a reader
 *       that has not started yet (or has no watermark yet) never stops the others.
 *   <li>A reader reports {@code Long.MAX_VALUE} while it is idle and once its input ended: it holds
 *       nothing back then. A reader that reports a watermark again counts again.
 *   <li>A finished reader and a reset one (its attempt is replaced) no longer count; the new attempt
 *       counts from its first report. A restart or a new leader starts with no reports at all.
 *   <li>The minimum of a group is the lowest watermark its readers reported last; it is {@code
 *       Long.MAX_VALUE} when every reader of the group reports that.
 * </ol>
 *
 * <p>Nothing of this is checkpointed: after a restore it is rebuilt from the readers' reports.
 * Main thread only, like the coordinators.
 */
public final class WatermarkAlignmentGroups {
    /** A source reader: the source's node and the reader's subtask. */
    record Reader(int nodeId, int subtask) {}

    /** The alignment group of each aligned source, by node id. */
    private final Map<Integer, String> groupOfNode;
    /** By group: what each reader of the group reported last. */
    private final Map<String, Map<Reader, Long>> reported = new HashMap<>();

    WatermarkAlignmentGroups(Map<Integer, String> groupOfNode) {
        this.groupOfNode = Map.copyOf(groupOfNode);
    }

    /** The groups of the job's sources whose watermark strategy has an alignment. */
    static WatermarkAlignmentGroups of(JobGraph graph) {
        Map<Integer, String> groups = new HashMap<>();
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().operation() instanceof Operation.SourceOp op && op.watermarks() != null) {
                op.watermarks().alignment().ifPresent(alignment -> groups.put(vertex.head().id(), alignment.group()));
            }
        }
        return new WatermarkAlignmentGroups(groups);
    }

    /** Whether the source of node {@code nodeId} is aligned. */
    boolean aligns(int nodeId) {
        return groupOfNode.containsKey(nodeId);
    }

    /**
     * A reader of an aligned source reported its watermark ({@code Long.MAX_VALUE}: idle or
     * ended); returns the minimum of its group, to announce to it.
     */
    long report(int nodeId, int subtask, long watermark) {
        String group = groupOfNode.get(nodeId);
        if (group == null) {
            throw new IllegalArgumentException("node " + nodeId + " reported a watermark for alignment, but its"
                    + " source's watermark strategy has no alignment");
        }
        reported.computeIfAbsent(group, g -> new HashMap<>()).put(new Reader(nodeId, subtask), watermark);
        return minimum(group);
    }

    /** The lowest watermark the readers of {@code group} reported last; {@code Long.MAX_VALUE} if none holds back. */
    long minimum(String group) {
        long minimum = Long.MAX_VALUE;
        for (long watermark : reported.getOrDefault(group, Map.of()).values()) {
            minimum = Math.min(minimum, watermark);
        }
        return minimum;
    }

    /** The reader finished, or its attempt was replaced: it no longer counts until it reports again. */
    void forget(int nodeId, int subtask) {
        String group = groupOfNode.get(nodeId);
        if (group != null) {
            Map<Reader, Long> readers = reported.get(group);
            if (readers != null) {
                readers.remove(new Reader(nodeId, subtask));
            }
        }
    }

    /** Every reader restarts: none counts until it reports again. */
    void forgetAll() {
        reported.clear();
    }
}

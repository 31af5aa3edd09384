package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import java.util.List;
import java.util.Objects;

/**
 * A finished attempt that a recovering JobMaster takes over as FINISHED without running it again,
 * exactly as its {@code ExecutionFinished} event recorded it.
 *
 * @param key        the subtask
 * @param attempt    the finished attempt (kept: its partition ids contain it)
 * @param tmId       the TaskManager its partitions are on
 * @param tmAddress  host:port of that TaskManager
 * @param partitions what it produced, one per output edge
 * @param collected  data of its collect sinks
 */
public record RestoredExecution(ExecutionKey key, int attempt, String tmId, String tmAddress,
        List<ProducedPartition> partitions, List<Collected> collected, long recordsIn, long recordsOut) {

    public RestoredExecution {
        Objects.requireNonNull(key, "key");
        partitions = List.copyOf(partitions);
        collected = List.copyOf(collected);
    }

    /** "v0/3#0". */
    public String name() {
        return key + "#" + attempt;
    }
}

package io.duraflow.simulation;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pipelined exchanges of streaming jobs, in memory: a producer attempt's partition holds one
 * FIFO channel per subpartition (records, checkpoint barriers, the end of input), which the
 * consumer subtask of that index reads. A partition breaks when its producer fails or is
 * cancelled, or its TaskManager dies; a consumer that reads a broken one fails, as a real one whose stream broke.
 */
final class SimPipelines {
    /** What travels in a channel. */
    sealed interface Message {}

    record Data(long value) implements Message {}

    record Barrier(long checkpointId) implements Message {}

    record End() implements Message {}

    static final class Partition {
        final SimTaskManager producer;
        final List<Deque<Message>> channels = new ArrayList<>();
        boolean broken;

        Partition(SimTaskManager producer, int subpartitions) {
            this.producer = producer;
            for (int i = 0; i < subpartitions; i++) {
                channels.add(new ArrayDeque<>());
            }
        }

        void add(int subpartition, Message message) {
            if (!broken) {
                channels.get(subpartition).add(message);
            }
        }

        void broadcast(Message message) {
            for (int i = 0; i < channels.size(); i++) {
                add(i, message);
            }
        }
    }

    private final Map<String, Partition> partitions = new HashMap<>();

    /**
     * A producer's partition, by its TaskManager and id: a consumer connects to the location its
     * deployment names (two leaders may run attempts with the same number, so the id alone does
     * not tell them apart).
     */
    Partition create(SimTaskManager producer, String partitionId, int subpartitions) {
        Partition partition = new Partition(producer, subpartitions);
        partitions.put(producer.tmId() + "/" + partitionId, partition);
        return partition;
    }

    /** The partition, or null if its producer has not created it (yet). */
    Partition find(String tmId, String partitionId) {
        return partitions.get(tmId + "/" + partitionId);
    }

    /** The producer failed or was cancelled: its consumers' streams break. */
    void release(SimTaskManager producer, String partitionId) {
        Partition partition = partitions.get(producer.tmId() + "/" + partitionId);
        if (partition != null) {
            partition.broken = true;
        }
    }

    void died(SimTaskManager taskManager) {
        for (Partition partition : partitions.values()) {
            if (partition.producer == taskManager) {
                partition.broken = true;
            }
        }
    }
}

package io.duraflow.taskmanager;

import io.duraflow.config.Configuration;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.ha.LeaderRetrieval;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What the whole-cluster simulation ({@code io.duraflow.simulation}) needs of the TaskExecutor
 * that is package-private: a TaskExecutor with its services and a TaskManager id of the
 * simulation's choosing, its start without waiting, its gRPC service (called with the
 * simulation's network in place of gRPC), and its partitions as a peer's fetch opens them.
 */
public final class SimulatedTaskExecutors {
    private SimulatedTaskExecutors() {}

    public static TaskExecutor create(String tmId, Configuration config, LeaderRetrieval leaderRetrieval,
            Path dataDirectory, TaskExecutorServices services) throws Exception {
        return new TaskExecutor(tmId, config, leaderRetrieval, dataDirectory, services);
    }

    /** Follows the leader and registers with it, without waiting; not from the executor's mailbox. */
    public static void begin(TaskExecutor executor, String ownAddress) throws Exception {
        executor.begin(ownAddress);
    }

    public static TaskManagerService service(TaskExecutor executor) {
        return new TaskManagerService(executor);
    }

    /** Opens a published partition as a peer's fetch does; see {@code TaskManagerPartitions#open}. */
    public static PartitionFileReader openPartition(TaskExecutor executor, String partitionId)
            throws PartitionNotFoundException, IOException {
        return executor.openPartition(partitionId);
    }
}

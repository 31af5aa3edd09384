package io.duraflow.checkpoint;

import java.nio.ByteBuffer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The counter with high availability: an 8-byte big-endian long in the znode
 * {@code /jobs/<jobId>/checkpoint-id-counter} (under the cluster's namespace), holding the next id.
 * Every change is a compare-and-set on the znode's version, so two JobManagers that both believe
 * they lead (briefly possible) still never get the same id, and the value never goes back. Curator's
 * {@code SharedCount} holds only an int, which is why this is a plain versioned znode.
 */
public final class ZooKeeperCheckpointIdCounter implements CheckpointIdCounter {
    private static final int MAX_ATTEMPTS = 100;
    private final CuratorFramework client;
    private final String path;

    public ZooKeeperCheckpointIdCounter(CuratorFramework client, String jobId) {
        this.client = client;
        this.path = "/jobs/" + jobId + "/checkpoint-id-counter";
    }

    @Override
    public long getAndIncrement() throws Exception {
        return update(current -> current + 1);
    }

    @Override
    public long get() throws Exception {
        ensureExists();
        return decode(client.getData().forPath(path));
    }

    @Override
    public void continueFrom(long nextId) throws Exception {
        update(current -> Math.max(current, nextId));
    }

    @Override
    public void discard() throws Exception {
        try {
            client.delete().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            // Already gone: discarding is idempotent.
        }
    }

    /** Sets the value to {@code next(current)} and returns the value before. */
    private long update(java.util.function.LongUnaryOperator next) throws Exception {
        ensureExists();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Stat stat = new Stat();
            long current = decode(client.getData().storingStatIn(stat).forPath(path));
            long updated = next.applyAsLong(current);
            if (updated == current) {
                return current;
            }
            try {
                client.setData().withVersion(stat.getVersion()).forPath(path, encode(updated));
                return current;
            } catch (KeeperException.BadVersionException e) {
                // Another JobManager changed it in between: read again.
            }
        }
        throw new IllegalStateException("could not update the checkpoint id counter " + path + " in " + MAX_ATTEMPTS
                + " attempts: another JobManager keeps changing it");
    }

    private void ensureExists() throws Exception {
        if (client.checkExists().forPath(path) == null) {
            try {
                client.create().creatingParentsIfNeeded().forPath(path, encode(1));
            } catch (KeeperException.NodeExistsException e) {
                // Created concurrently: use it.
            }
        }
    }

    private long decode(byte[] bytes) {
        if (bytes == null || bytes.length != Long.BYTES) {
            throw new IllegalStateException("checkpoint id counter " + path + " holds " + (bytes == null ? 0
                    : bytes.length) + " bytes, expected 8; delete the znode only if the job has no checkpoints");
        }
        return ByteBuffer.wrap(bytes).getLong();
    }

    private static byte[] encode(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }
}

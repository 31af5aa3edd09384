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
 *
 * <p>The znode is created by the job's restore ({@link #get}, {@link #continueFrom}), which every
 * run of a job does before its first checkpoint, and deleted with its parent {@code /jobs/<jobId>}
 * by the job's cleanup ({@link #discard}). {@link #getAndIncrement} never creates it: a trigger
 * still in flight when the job ended (or a deposed leader's) must fail, not leave behind a counter
 * that restarts at 1.
 */
public final class ZooKeeperCheckpointIdCounter implements CheckpointIdCounter {
    private static final int MAX_ATTEMPTS = 100;
    private final CuratorFramework client;
    /** The job's own znode; it holds nothing but the counter. */
    private final String jobPath;
    private final String path;

    public ZooKeeperCheckpointIdCounter(CuratorFramework client, String jobId) {
        this.client = client;
        this.jobPath = "/jobs/" + jobId;
        this.path = jobPath + "/checkpoint-id-counter";
    }

    /** @throws IllegalStateException if the counter does not exist (never restored, or discarded) */
    @Override
    public long getAndIncrement() throws Exception {
        return update(current -> current + 1, false);
    }

    @Override
    public long get() throws Exception {
        ensureExists();
        return decode(client.getData().forPath(path));
    }

    @Override
    public void continueFrom(long nextId) throws Exception {
        update(current -> Math.max(current, nextId), true);
    }

    /** Deletes the counter and the job's znode; idempotent. */
    @Override
    public void discard() throws Exception {
        for (String node : new String[] {path, jobPath}) {
            try {
                client.delete().forPath(node);
            } catch (KeeperException.NoNodeException e) {
                // Already gone: an earlier attempt of the cleanup got this far.
            }
        }
    }

    /** Sets the value to {@code next(current)} and returns the value before. */
    private long update(java.util.function.LongUnaryOperator next, boolean create) throws Exception {
        if (create) {
            ensureExists();
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Stat stat = new Stat();
            long current;
            try {
                current = decode(client.getData().storingStatIn(stat).forPath(path));
            } catch (KeeperException.NoNodeException e) {
                throw new IllegalStateException("checkpoint id counter " + path + " does not exist: the job was"
                        + " cleaned up, or it takes a checkpoint without having restored first", e);
            }
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

package io.duraflow.exchange.blocking;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.exchange.PartitionNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The result partitions of this TaskManager as its tasks, its peers and the JobManager see them:
 * tasks create and publish them and fetch their inputs (from here or from a peer TaskManager),
 * peers fetch published ones, the JobManager releases them. With batch job recovery, finished
 * partitions outlive the JobManager that knew them for {@code taskmanager.partition-retention.timeout}:
 * the next leader is told about them when this TaskManager registers, and takes them over.
 *
 * <p>Threads, on purpose: creating, publishing, opening and fetching are thread-safe and run on
 * task threads and gRPC threads (a lookup in the concurrent map of immutable records of {@link
 * PartitionStore}, then reading files nobody writes any more); keeping, taking over and releasing
 * follow the JobManager and run in the {@link TaskExecutor}'s mailbox, which they assert.
 */
public final class TaskManagerPartitions {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerPartitions.class);

    private final String tmId;
    private final Mailbox mailbox;
    private final PartitionStore store;
    /** Fetches from peer TaskManagers, for task threads; thread-safe. */
    private final PeerPartitions peers = new PeerPartitions();
    private final int writeBufferBytes;
    /** Keep finished partitions through a JobManager failover (batch job recovery). */
    private final boolean retainPartitions;
    private final long retentionTimeoutMs;
    /** Mailbox only: releases the kept partitions if no new leader took them over in time. */
    private Mailbox.Cancellable retentionExpiry;

    public TaskManagerPartitions(String tmId, Mailbox mailbox, Path dataDirectory, int writeBufferBytes,
            boolean retainPartitions, long retentionTimeoutMs) throws IOException {
        this(tmId, mailbox, new PartitionStore(dataDirectory), writeBufferBytes, retainPartitions, retentionTimeoutMs);
    }

    public TaskManagerPartitions(String tmId, Mailbox mailbox, PartitionStore store, int writeBufferBytes,
            boolean retainPartitions, long retentionTimeoutMs) {
        this.tmId = tmId;
        this.mailbox = mailbox;
        this.store = store;
        this.writeBufferBytes = writeBufferBytes;
        this.retainPartitions = retainPartitions;
        this.retentionTimeoutMs = retentionTimeoutMs;
    }

    // ------------------------------------------------------------ tasks and peers (any thread)

    /** A task starts writing a partition; it is served once {@link #publish published}. */
    public PartitionFileWriter create(String jobId, String partitionId, int subpartitions) throws IOException {
        return store.create(jobId, partitionId, subpartitions, writeBufferBytes);
    }

    public void publish(String jobId, String partitionId) {
        store.publish(jobId, partitionId);
    }

    /**
     * Opens a published partition to stream its frames, for a local fetch (task thread) or a peer's
     * (gRPC thread): reads only the thread-safe {@link PartitionStore}, never mailbox state. The one
     * place that decides what counts as "gone", for both.
     *
     * @throws PartitionNotFoundException if it is not published here, was released while being
     *     opened, or its files are corrupt: in each case only running its producer again helps
     * @throws IOException if the files cannot be read for another reason
     */
    public PartitionFileReader open(String partitionId) throws PartitionNotFoundException, IOException {
        PartitionStore.StoredPartition stored = store.lookup(partitionId);
        if (stored == null) {
            throw new PartitionNotFoundException(partitionId, "not on TaskManager " + tmId);
        }
        try {
            return PartitionFileReader.open(stored.dataFile(), stored.indexFile());
        } catch (CorruptPartitionException | NoSuchFileException e) {
            throw new PartitionNotFoundException(partitionId, "on TaskManager " + tmId + ": " + e.getMessage(), e);
        }
    }

    /** Streams subpartitions {@code from} to {@code to} of a partition here or on a peer TaskManager. */
    public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) throws Exception {
        if (location.getTmId().equals(tmId)) {
            try (PartitionFileReader reader = open(location.getPartitionId())) {
                reader.forEachChunk(from, to, frames);
            }
            return;
        }
        peers.fetch(location, from, to, frames);
    }

    // ------------------------------------------------------------ following the JobManager (mailbox)

    /**
     * The JobManager is gone. With batch job recovery the published partitions stay for the
     * retention timeout, and go then unless {@code registeredAgain} says a new leader knows this
     * TaskManager (and so the partitions, see {@link #describeHeld}); otherwise they go now.
     *
     * @return whether they are kept
     */
    public boolean keepForNextLeader(BooleanSupplier registeredAgain) {
        mailbox.assertRunningInMailbox();
        if (!retainPartitions) {
            store.releaseAll();
            return false;
        }
        if (retentionExpiry != null) {
            retentionExpiry.cancel();
        }
        retentionExpiry = mailbox.schedule(() -> {
            if (!registeredAgain.getAsBoolean()) {
                LOG.warn("No JobManager took over the kept partitions within {} ms; releasing them",
                        retentionTimeoutMs);
                store.releaseAll();
            }
        }, retentionTimeoutMs);
        return true;
    }

    /** How many partitions are published, kept ones included. */
    public int size() {
        return store.size();
    }

    public long retentionTimeoutMs() {
        return retentionTimeoutMs;
    }

    /** Adds every published partition to a registration; they count as kept from now on. */
    public void describeHeld(RegisterTaskManagerRequest.Builder registration) {
        mailbox.assertRunningInMailbox();
        for (PartitionStore.StoredPartition held : store.keepPublished()) {
            registration.addHeldPartitions(HeldPartition.newBuilder().setJobId(held.jobId())
                    .setPartitionId(held.partitionId()));
        }
    }

    /** Registered with a leader, which knows the kept partitions now and releases what it does not need. */
    public void takenOver() {
        mailbox.assertRunningInMailbox();
        if (retentionExpiry != null) {
            retentionExpiry.cancel();
            retentionExpiry = null;
        }
    }

    /**
     * The JobManager releases partitions of a job: those named, or all of the job's if none are;
     * with {@code onlyKept}, only while they are still the ones kept from an earlier leader. The
     * answer comes once the files are deleted: the release of all of a job's partitions is a step
     * of the job's cleanup, which is CLEAN only once every TaskManager confirmed it, so a file
     * that cannot be deleted fails the release (the TaskExecutor refuses the request with
     * INTERNAL, naming the file) and the JobManager asks again.
     *
     * @throws IOException naming this TaskManager, the job and the file that could not be deleted
     */
    public void release(String jobId, List<String> partitionIds, boolean onlyKept) throws IOException {
        mailbox.assertRunningInMailbox();
        if (onlyKept) {
            store.releaseKept(jobId, partitionIds);
        } else if (partitionIds.isEmpty()) {
            try {
                store.releaseJob(jobId);
            } catch (IOException e) {
                LOG.warn("Could not delete the partitions of job {}: {}", jobId, e.toString());
                throw new IOException("TaskManager " + tmId + " could not delete the partitions of job " + jobId
                        + ": " + e, e);
            }
        } else {
            for (String partitionId : partitionIds) {
                store.release(jobId, partitionId);
            }
        }
    }

    /** Deletes every partition and stops fetching from peers: the TaskManager stops. Any thread. */
    public void close() {
        store.releaseAll();
        peers.close();
    }
}

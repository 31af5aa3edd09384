package io.duraflow.kafka.source;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KafkaSourceReader}'s commits of its checkpoints' positions to the consumer group, for
 * monitoring (lag) only: a failed commit is logged at WARN, counted, and never fails the job.
 * Each snapshot's positions are remembered and committed ({@code commitAsync}) when that
 * checkpoint completes; the last completed ones once more, synchronously, when the reader closes.
 *
 * <p><b>The group coordinator is found early.</b> The first split assignment reads the group's
 * committed offsets before any fetch (the metrics show them from the start). Found by the first
 * commit instead, the coordinator's lookup went to the broker's connection, where it waited
 * behind a fetch the broker holds for {@code fetch.max.wait.ms} when there is nothing to read,
 * and a bounded job whose only checkpoint was its last closed before the commit went out.
 *
 * <p>Task thread only, like the reader.
 */
final class GroupOffsetCommits {
    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetCommits.class);
    /** Checkpoints whose offsets wait for completion at most; older ones are dropped uncommitted. */
    private static final int MAX_PENDING = 32;
    /** How long the first split assignment waits for the group's committed offsets. */
    private static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(2);
    /** How long {@link #commitLastBeforeClose} waits. */
    private static final Duration CLOSE_COMMIT_TIMEOUT = Duration.ofSeconds(5);

    /** The positions of a completed checkpoint. */
    private record Completed(long checkpointId, Map<TopicPartition, Long> offsets) {}

    private final Consumer<byte[], byte[]> consumer;
    private final KafkaSourceReader.Settings settings;
    private final KafkaSourceReaderMetrics metrics;
    /** Offsets to commit per checkpoint id, until the checkpoint completes. */
    private final TreeMap<Long, Map<TopicPartition, Long>> byCheckpoint = new TreeMap<>();
    /** The last completed checkpoint's positions; null: none. */
    private Completed lastCompleted;
    /** {@link #lookUpGroup} answered or failed for good: it is not asked again. */
    private boolean groupLookedUp;

    GroupOffsetCommits(Consumer<byte[], byte[]> consumer, KafkaSourceReader.Settings settings,
            KafkaSourceReaderMetrics metrics) {
        this.consumer = consumer;
        this.settings = settings;
        this.metrics = metrics;
    }

    /** Partitions were assigned ({@code partitions}: all it reads); the first time, reads their group offsets. */
    void assigned(Set<TopicPartition> partitions) {
        if (!settings.commits() || groupLookedUp) {
            return;
        }
        try {
            Map<TopicPartition, Long> committed = new HashMap<>();
            consumer.committed(partitions, LOOKUP_TIMEOUT).forEach((partition, offset) -> {
                if (offset != null) {
                    committed.put(partition, offset.offset());
                }
            });
            metrics.committed(committed);
            groupLookedUp = true;
        } catch (WakeupException e) {
            // A mail for the task (a checkpoint trigger): the next assignment or commit finds the group.
        } catch (KafkaException e) {
            LOG.info("Kafka source: cannot read the offsets of group '{}' on {} yet: {}; the checkpoints' commits"
                    + " will find its coordinator", settings.groupId(), settings.bootstrapServers(),
                    KafkaSourceReader.oneLine(e));
            groupLookedUp = true;
        }
    }

    /** A snapshot of checkpoint {@code checkpointId} took these positions. */
    void snapshotted(long checkpointId, Map<TopicPartition, Long> offsets) {
        if (settings.commits() && !offsets.isEmpty()) {
            byCheckpoint.put(checkpointId, offsets);
            while (byCheckpoint.size() > MAX_PENDING) {
                byCheckpoint.pollFirstEntry();
            }
        }
    }

    /** Checkpoint {@code checkpointId} completed: commits its positions; earlier ones are dropped. */
    void completed(long checkpointId) {
        Map<TopicPartition, Long> offsets = byCheckpoint.get(checkpointId);
        byCheckpoint.headMap(checkpointId, true).clear();
        if (offsets == null) {
            return;
        }
        lastCompleted = new Completed(checkpointId, offsets);
        try {
            consumer.commitAsync(toCommit(offsets), (committed, failure) -> {
                if (failure != null) {
                    warnFailed(checkpointId, failure);
                } else {
                    metrics.committed(offsets);
                }
            });
        } catch (KafkaException e) {
            warnFailed(checkpointId, e);
        }
    }

    /**
     * Commits the last completed checkpoint's positions once more and waits for it: the reader then
     * closes its consumer without waiting for anything (a bounded reader's last fetch may sit at the
     * broker for {@code fetch.max.wait.ms}), and an asynchronous commit still on its way would be
     * dropped. The same offsets again, sent after it on the coordinator's connection.
     */
    void commitLastBeforeClose() {
        if (lastCompleted == null) {
            return;
        }
        try {
            consumer.commitSync(toCommit(lastCompleted.offsets()), CLOSE_COMMIT_TIMEOUT);
            metrics.committed(lastCompleted.offsets());
        } catch (InterruptException e) {
            // Cancelled: the interrupt stays set; the offsets serve monitoring only.
        } catch (KafkaException e) {
            warnFailed(lastCompleted.checkpointId(), e);
        }
    }

    /** The offsets remembered for checkpoints not completed yet. */
    Map<Long, Map<TopicPartition, Long>> pending() {
        return Map.copyOf(byCheckpoint);
    }

    private static Map<TopicPartition, OffsetAndMetadata> toCommit(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        offsets.forEach((partition, offset) -> commit.put(partition, new OffsetAndMetadata(offset)));
        return commit;
    }

    private void warnFailed(long checkpointId, Exception failure) {
        metrics.commitFailed();
        LOG.warn("Kafka source: cannot commit the offsets of checkpoint {} to group '{}' on {}: {} (they serve"
                + " monitoring only: the job's positions are in its checkpoints)", checkpointId, settings.groupId(),
                settings.bootstrapServers(), KafkaSourceReader.oneLine(failure));
    }
}

package io.duraflow.kafka.source;

import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;

/** A consumer whose group refuses every asynchronous commit, as a group in a rebalance does. */
final class CommitRefusingConsumer extends MockConsumer<byte[], byte[]> {
    CommitRefusingConsumer() {
        super("earliest");
    }

    @Override
    public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        callback.onComplete(offsets, new RebalanceInProgressException("no"));
    }
}

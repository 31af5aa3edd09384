package io.duraflow.kafka.sink;

import io.duraflow.api.metrics.Counter;
import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.sink.Committer;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a {@link KafkaSink}'s precommitted transactions: through the producer that wrote it when
 * that still runs in this process (the usual case: a checkpoint completed), else by taking the
 * transaction up by its producer id and epoch in a new producer (a restore, or a commit after the
 * writer closed).
 *
 * <p>Idempotent, as the contract asks: committing a transaction that was committed already
 * succeeds, or is refused as fenced (a later producer of its id ran, which happens only after the
 * commit: every start commits the restored transactions before it aborts anything), and is then
 * skipped. A transaction the broker aborted itself, because {@code transaction.timeout.ms} elapsed
 * before the commit (the job was down longer than that), is refused the same way; the broker's
 * description of the id tells the two apart (an abort that ended exactly this producer epoch), and
 * the loss of its records is logged as an error naming the transaction and counted (metric {@code
 * kafka_sink_transactions_lost}; {@code kafka_sink_transactions_committed} counts the commits). The job goes on: its sources have moved past those records, so failing it
 * would not bring them back.
 */
final class KafkaCommitter implements Committer<KafkaCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCommitter.class);

    /** How a transaction whose producer is gone is committed, and what the broker says of it. */
    interface TakeUp {
        /** Commits the transaction in a new producer of its id; throws what the broker answers. */
        void commit(KafkaCommittable committable);

        /** Whether the broker's last word on the id is an abort that ended exactly this transaction. */
        boolean abortedByBroker(KafkaCommittable committable);
    }

    private final ConcurrentMap<KafkaCommittable, KafkaSinkWriter.LiveTransaction> live;
    private final TakeUp takeUp;
    private final String transactionalIdPrefix;
    private final long transactionTimeoutMs;
    private final Counter committed;
    private final Counter lost;

    KafkaCommitter(ConcurrentMap<KafkaCommittable, KafkaSinkWriter.LiveTransaction> live, TakeUp takeUp,
            String transactionalIdPrefix, long transactionTimeoutMs, MetricGroup metrics) {
        this.live = live;
        this.takeUp = takeUp;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.transactionTimeoutMs = transactionTimeoutMs;
        this.committed = metrics.counter("kafka_sink_transactions_committed", "Kafka transactions the sink"
                + " committed: its own when their checkpoint completed, and those of a restored checkpoint");
        this.lost = metrics.counter("kafka_sink_transactions_lost", "Kafka transactions of a checkpoint that the"
                + " broker had aborted at transaction.timeout.ms before the sink could commit them; their records"
                + " are lost");
    }

    @Override
    public void commit(List<KafkaCommittable> committables) {
        for (KafkaCommittable committable : committables) {
            KafkaSinkWriter.LiveTransaction transaction = live.remove(committable);
            if (transaction != null) {
                try {
                    transaction.commit().run();
                } catch (ProducerFencedException e) {
                    throw KafkaSink.fenced(transactionalIdPrefix, committable.transactionalId(), e);
                }
                transaction.committed().run();
                committed.inc();
            } else {
                commitTakenUp(committable);
            }
        }
    }

    private void commitTakenUp(KafkaCommittable committable) {
        try {
            takeUp.commit(committable);
            committed.inc();
            LOG.info("committed Kafka transaction {} of an earlier producer", committable);
        } catch (ProducerFencedException | InvalidProducerEpochException | InvalidTxnStateException e) {
            // The broker bumped the id's epoch past the transaction's: it was committed (and a later
            // producer of the id ran), or the broker aborted it at its timeout. Its state tells which.
            if (takeUp.abortedByBroker(committable)) {
                lost.inc();
                LOG.error("Kafka transaction {} cannot be committed: the broker aborted it because it stayed open"
                        + " longer than transaction.timeout.ms ({} ms), most likely while the job was down; the"
                        + " records it held are lost; raise transaction.timeout.ms (and the broker's"
                        + " transaction.max.timeout.ms) above the longest outage to expect",
                        committable, transactionTimeoutMs);
            } else {
                LOG.info("Kafka transaction {} was committed before: {}", committable, e.toString());
            }
        }
    }
}

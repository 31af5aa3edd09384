package io.duraflow.kafka.sink;

import io.duraflow.api.sink.Committer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
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
 * the loss of its records is logged as an error naming the transaction. The job goes on: its
 * sources have moved past those records, so failing it would not bring them back.
 */
final class KafkaCommitter implements Committer<KafkaCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCommitter.class);

    private final KafkaSink<?> sink;

    KafkaCommitter(KafkaSink<?> sink) {
        this.sink = sink;
    }

    @Override
    public void commit(List<KafkaCommittable> committables) {
        for (KafkaCommittable committable : committables) {
            KafkaSinkWriter.LiveTransaction live = sink.liveTransactions().remove(committable);
            if (live != null) {
                try {
                    live.producer().commit();
                } catch (ProducerFencedException e) {
                    throw sink.fenced(committable.transactionalId(), e);
                }
                live.onCommitted().accept(live.producer());
            } else {
                commitTakenUp(committable);
            }
        }
    }

    private void commitTakenUp(KafkaCommittable committable) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                TransactionalProducer.withId(sink.producerProperties(), committable.transactionalId()));
        try {
            ProducerInternals.resume(producer, committable);
            producer.commitTransaction();
            LOG.info("committed Kafka transaction {} of an earlier producer", committable);
        } catch (ProducerFencedException | InvalidProducerEpochException | InvalidTxnStateException e) {
            // The broker bumped the id's epoch past the transaction's: it was committed (and a later
            // producer of the id ran), or the broker aborted it at its timeout. Its state tells which.
            if (abortedByBroker(committable)) {
                LOG.error("Kafka transaction {} cannot be committed: the broker aborted it because it stayed open"
                        + " longer than transaction.timeout.ms ({} ms), most likely while the job was down; the"
                        + " records it held are lost; raise transaction.timeout.ms (and the broker's"
                        + " transaction.max.timeout.ms) above the longest outage to expect",
                        committable, sink.transactionTimeout().toMillis());
            } else {
                LOG.info("Kafka transaction {} was committed before: {}", committable, e.toString());
            }
        } finally {
            producer.close(Duration.ZERO);
        }
    }

    /**
     * Whether the broker's last word on the committable's id is an abort that ended exactly this
     * transaction (an abort bumps the epoch by one, and nothing ran under the id since).
     */
    private boolean abortedByBroker(KafkaCommittable committable) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, sink.bootstrapServers()))) {
            TransactionDescription description = admin.describeTransactions(List.of(committable.transactionalId()))
                    .description(committable.transactionalId()).get();
            return description.state() == TransactionState.COMPLETE_ABORT
                    && description.producerId() == committable.producerId()
                    && description.producerEpoch() == committable.epoch() + 1;
        } catch (ExecutionException | RuntimeException e) {
            LOG.warn("cannot tell whether Kafka transaction {} was committed: {}", committable, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

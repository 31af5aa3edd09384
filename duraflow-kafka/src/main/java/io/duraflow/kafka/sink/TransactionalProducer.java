package io.duraflow.kafka.sink;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.errors.ProducerFencedException;

/**
 * One transactional id of a {@link KafkaSinkWriter} and its producer, which runs one transaction
 * after another: begun, filled with records, precommitted (flushed, its committable taken) at a
 * checkpoint barrier, committed when that checkpoint completes, then begun again. Keeping the
 * producer across transactions saves a producer and an {@code InitProducerId} round trip per
 * checkpoint. Used by one task thread, except {@link #commit()}, which a committer may call from
 * another subtask's thread while the owner waits for it (see {@link KafkaSink}'s live transactions).
 */
final class TransactionalProducer {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String transactionalId;
    private boolean inTransaction;
    private boolean hasRecords;

    private TransactionalProducer(KafkaProducer<byte[], byte[]> producer, String transactionalId) {
        this.producer = producer;
        this.transactionalId = transactionalId;
    }

    /**
     * A producer for {@code transactionalId}, initialized: a transaction an earlier producer of this
     * id left open is aborted, and that producer is fenced off.
     */
    static TransactionalProducer initialized(Properties base, String transactionalId) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(withId(base, transactionalId));
        try {
            producer.initTransactions();
        } catch (InvalidTxnTimeoutException e) {
            producer.close(Duration.ZERO);
            throw new IllegalArgumentException("the broker refuses the Kafka sink's transaction.timeout.ms ("
                    + base.getProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG) + " ms): it must be at most the"
                    + " broker's transaction.max.timeout.ms (15 min unless set); lower it in the sink's properties"
                    + " or raise the broker's limit", e);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return new TransactionalProducer(producer, transactionalId);
    }

    static Properties withId(Properties base, String transactionalId) {
        Properties properties = new Properties();
        properties.putAll(base);
        properties.setProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return properties;
    }

    String transactionalId() {
        return transactionalId;
    }

    void begin() {
        producer.beginTransaction();
        inTransaction = true;
        hasRecords = false;
    }

    void send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        hasRecords = true;
        producer.send(record, callback);
    }

    boolean hasRecords() {
        return hasRecords;
    }

    /**
     * Waits until the broker holds every record sent in this transaction and returns what commits
     * it from any process. The transaction stays open.
     */
    KafkaCommittable precommit() {
        producer.flush();
        return ProducerInternals.committable(producer, transactionalId);
    }

    /** Commits the precommitted transaction; the producer can begin the next one. */
    void commit() {
        producer.commitTransaction();
        inTransaction = false;
        hasRecords = false;
    }

    /**
     * Aborts the open transaction, if it has records, within the producer's {@code max.block.ms}
     * (an open transaction holds back every {@code read_committed} consumer of its partitions);
     * failures are left to the next start of the subtask, which aborts what is left open.
     */
    void abortQuietly() {
        if (inTransaction && hasRecords) {
            try {
                producer.abortTransaction();
            } catch (ProducerFencedException e) {
                // A newer producer of this id took over: it aborted the transaction already.
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(TransactionalProducer.class).warn(
                        "cannot abort Kafka transaction {}; the subtask's next start aborts it, or the broker"
                                + " after transaction.timeout.ms: {}", transactionalId, e.toString());
            }
        }
        inTransaction = false;
    }

    /** Closes without waiting and without ending the transaction: a precommitted one stays open for a restore to commit. */
    void closeLeavingTransactionOpen() {
        producer.close(Duration.ZERO);
    }
}

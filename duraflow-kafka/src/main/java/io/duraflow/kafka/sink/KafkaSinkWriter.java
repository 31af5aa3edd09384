package io.duraflow.kafka.sink;

import io.duraflow.api.sink.CommittingSinkWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A {@link KafkaSink} subtask's writer. With {@link DeliveryGuarantee#EXACTLY_ONCE} its records go
 * into the open transaction of one of its transactional ids ({@code <prefix>-<subtask>-<n>}); at a
 * barrier that transaction is precommitted into a committable and the next records go into a
 * transaction of another id: a free one, or a new id while every other waits for its checkpoint
 * to complete (two suffice while checkpoints complete in order). With the other guarantees one
 * plain producer sends everything, and {@link DeliveryGuarantee#AT_LEAST_ONCE} flushes it at
 * every barrier. Single-threaded (the task thread), except that committed transactions come back
 * through a concurrent queue.
 */
final class KafkaSinkWriter<T> implements CommittingSinkWriter<T, KafkaCommittable> {
    /** Transactions of one subtask waiting for their checkpoints at most; beyond, checkpoints are not completing. */
    static final int MAX_WAITING_TRANSACTIONS = 64;

    private final KafkaSink<T> sink;
    private final KafkaRecordSerializer<T> serializer;
    private final Properties properties;
    private final String transactionalIdBase;
    private final SendErrors errors = new SendErrors();
    /** NONE and AT_LEAST_ONCE: the producer; null with EXACTLY_ONCE. */
    private final KafkaProducer<byte[], byte[]> plain;
    /** EXACTLY_ONCE: the producer whose transaction takes the records now. */
    private TransactionalProducer current;
    /** Producers whose transactions were committed, ready for the next one; filled by committers. */
    private final Queue<TransactionalProducer> committed = new ConcurrentLinkedQueue<>();
    private final Queue<TransactionalProducer> free = new ArrayDeque<>();
    /** Producers whose precommitted transactions wait for their checkpoints, with their committables. */
    private final Map<TransactionalProducer, KafkaCommittable> waiting = new IdentityHashMap<>();
    private int idsCreated;

    KafkaSinkWriter(KafkaSink<T> sink, Properties properties, String transactionalIdBase) {
        this.sink = sink;
        this.serializer = sink.serializer();
        this.properties = properties;
        this.transactionalIdBase = transactionalIdBase;
        if (sink.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
            this.plain = null;
            this.current = newTransactionalProducer();
            current.begin();
        } else {
            this.plain = new KafkaProducer<>(properties);
        }
    }

    @Override
    public void write(T element) {
        errors.throwIfAny();
        ProducerRecord<byte[], byte[]> record = serializer.serialize(element);
        Callback callback = errors.callbackFor(record.topic());
        try {
            if (plain != null) {
                plain.send(record, callback);
            } else {
                current.send(record, callback);
            }
        } catch (TimeoutException e) {
            throw sink.topicUnavailable(record.topic(), e);
        } catch (ProducerFencedException e) {
            throw sink.fenced(current.transactionalId(), e);
        }
    }

    @Override
    public List<KafkaCommittable> prepareCommit(long checkpointId) {
        if (plain != null) {
            if (sink.delivery() == DeliveryGuarantee.AT_LEAST_ONCE) {
                plain.flush();
            }
            errors.throwIfAny();
            return List.of();
        }
        errors.throwIfAny();
        if (!current.hasRecords()) {
            return List.of();
        }
        KafkaCommittable committable;
        try {
            committable = current.precommit();
        } catch (ProducerFencedException e) {
            throw sink.fenced(current.transactionalId(), e);
        }
        errors.throwIfAny();
        TransactionalProducer precommitted = current;
        sink.liveTransactions().put(committable,
                new LiveTransaction(precommitted::commit, () -> committed.add(precommitted)));
        waiting.put(precommitted, committable);
        current = nextProducer();
        current.begin();
        return List.of(committable);
    }

    /** A producer for the next transaction: one whose transaction was committed, else a new id. */
    private TransactionalProducer nextProducer() {
        for (TransactionalProducer done; (done = committed.poll()) != null; ) {
            waiting.remove(done);
            free.add(done);
        }
        TransactionalProducer next = free.poll();
        if (next != null) {
            return next;
        }
        if (waiting.size() >= MAX_WAITING_TRANSACTIONS) {
            throw new IllegalStateException(waiting.size() + " Kafka transactions of this sink subtask wait for"
                    + " checkpoints that do not complete; see 'duraflow checkpoints <job id>' for why they fail");
        }
        return newTransactionalProducer();
    }

    private TransactionalProducer newTransactionalProducer() {
        return TransactionalProducer.initialized(properties, transactionalIdBase + "-" + idsCreated++);
    }

    /** Batch mode and the end of input without checkpoints: everything sent becomes visible now. */
    @Override
    public void finish() {
        if (plain != null) {
            plain.flush();
            errors.throwIfAny();
            return;
        }
        if (current.hasRecords()) {
            current.precommit();
            errors.throwIfAny();
            current.commit();
        }
    }

    @Override
    public void abort() {
        if (current != null) {
            current.abortQuietly();
        }
    }

    /**
     * Aborts the transaction in progress (its records are not in any checkpoint) and closes every
     * producer; precommitted transactions stay open, for a restore of their checkpoint to commit.
     */
    @Override
    public void close() {
        if (plain != null) {
            plain.close(Duration.ZERO);
            return;
        }
        current.abortQuietly();
        current.closeLeavingTransactionOpen();
        for (TransactionalProducer producer : free) {
            producer.closeLeavingTransactionOpen();
        }
        waiting.forEach((producer, committable) -> {
            sink.liveTransactions().remove(committable);
            producer.closeLeavingTransactionOpen();
        });
    }

    /** A precommitted transaction whose producer runs here: how to commit it, and to tell its writer it was. */
    record LiveTransaction(Runnable commit, Runnable committed) {}

    /** The first failure of an asynchronous send, thrown on the task thread by the next call. */
    private static final class SendErrors {
        private final Map<String, Callback> callbacks = new HashMap<>();
        private volatile RuntimeException first;
        /**
         * The topic of the last record and its callback: a serializer that writes to one topic hands
         * over the same string every time (the map lookup showed in a tenth of the task thread's
         * samples in the Kafka benchmark).
         */
        private String lastTopic;
        private Callback lastCallback;

        /** The callback for records of {@code topic}, one per topic rather than one per record. */
        Callback callbackFor(String topic) {
            if (topic == lastTopic) {
                return lastCallback;
            }
            Callback callback = callbacks.get(topic);
            if (callback == null) {
                callback = newCallback(topic);
                if (callbacks.size() < 1024) {
                    // Bounded: a serializer that picks topics per record must not grow this without end.
                    callbacks.put(topic, callback);
                }
            }
            lastTopic = topic;
            lastCallback = callback;
            return callback;
        }

        private Callback newCallback(String topic) {
            return (metadata, exception) -> {
                if (exception != null && first == null) {
                    first = new IllegalStateException("the Kafka sink cannot write to topic " + topic + ": "
                            + exception, exception);
                }
            };
        }

        void throwIfAny() {
            RuntimeException failure = first;
            if (failure != null) {
                throw failure;
            }
        }
    }
}

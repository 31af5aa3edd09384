package io.duraflow.kafka.sink;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link KafkaCommitter.TakeUp} against the brokers: a new producer of the id, and the Admin client. */
final class BrokerTakeUp implements KafkaCommitter.TakeUp {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerTakeUp.class);

    private final Properties producerProperties;
    private final String bootstrapServers;

    BrokerTakeUp(Properties producerProperties, String bootstrapServers) {
        this.producerProperties = producerProperties;
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    public void commit(KafkaCommittable committable) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                TransactionalProducer.withId(producerProperties, committable.transactionalId()));
        try {
            ProducerInternals.resume(producer, committable);
            producer.commitTransaction();
        } finally {
            producer.close(Duration.ZERO);
        }
    }

    /** An abort bumps the epoch by one: {@code CompleteAbort} at the committable's epoch + 1, and nothing ran since. */
    @Override
    public boolean abortedByBroker(KafkaCommittable committable) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
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

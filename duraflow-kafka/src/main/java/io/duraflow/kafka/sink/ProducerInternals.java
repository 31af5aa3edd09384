package io.duraflow.kafka.sink;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The two things exactly-once needs from a {@link KafkaProducer} that its public API does not
 * offer, reached by reflection into its transaction manager, and nothing else of its internals:
 * <ol>
 *   <li>the producer id and epoch of the open transaction, which a committable stores;</li>
 *   <li>taking up a transaction another producer (one that died) left open, by its producer id and
 *       epoch, so that {@link KafkaProducer#commitTransaction()} ends it with a commit.</li>
 * </ol>
 * Kafka's own two-phase commit (prepare, then complete from another process) is not in the public
 * producer API of kafka-clients 4.4; Flink's Kafka connector and Hazelcast Jet take up transactions
 * the same way. {@link #check()} runs before a writer starts, so a kafka-clients version whose
 * internals differ fails the job at its start with a message naming what is missing, never while a
 * checkpoint is committed.
 */
final class ProducerInternals {
    private static final String STATE_ENUM = "org.apache.kafka.clients.producer.internals.TransactionManager$State";

    private ProducerInternals() {}

    /** Fails with a one-line message if this kafka-clients version lacks what exactly-once uses here. */
    static void check() {
        try {
            Field manager = KafkaProducer.class.getDeclaredField("transactionManager");
            Class<?> managerType = manager.getType();
            Field idAndEpoch = managerType.getDeclaredField("producerIdAndEpoch");
            idAndEpoch.getType().getDeclaredConstructor(long.class, short.class);
            idAndEpoch.getType().getDeclaredField("producerId");
            idAndEpoch.getType().getDeclaredField("epoch");
            managerType.getDeclaredMethod("transitionTo", Class.forName(STATE_ENUM));
            managerType.getDeclaredField("transactionStarted");
            for (String state : new String[] {"INITIALIZING", "READY", "IN_TRANSACTION"}) {
                state(state);
            }
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw unsupported(e);
        }
    }

    /** The producer id and epoch of {@code producer}'s transaction (it must have been initialized). */
    static KafkaCommittable committable(KafkaProducer<?, ?> producer, String transactionalId) {
        try {
            Object manager = field(KafkaProducer.class, "transactionManager").get(producer);
            Object idAndEpoch = field(manager.getClass(), "producerIdAndEpoch").get(manager);
            long producerId = (long) field(idAndEpoch.getClass(), "producerId").get(idAndEpoch);
            short epoch = (short) field(idAndEpoch.getClass(), "epoch").get(idAndEpoch);
            return new KafkaCommittable(transactionalId, producerId, epoch);
        } catch (ReflectiveOperationException e) {
            throw unsupported(e);
        }
    }

    /**
     * Makes {@code producer} (new, configured with the committable's transactional id, and never
     * initialized: {@code initTransactions} would abort the transaction) the owner of the
     * committable's open transaction, as if it had begun it and sent records.
     */
    static void resume(KafkaProducer<?, ?> producer, KafkaCommittable committable) {
        try {
            Object manager = field(KafkaProducer.class, "transactionManager").get(producer);
            Field idAndEpochField = field(manager.getClass(), "producerIdAndEpoch");
            Constructor<?> idAndEpoch = idAndEpochField.getType().getDeclaredConstructor(long.class, short.class);
            idAndEpoch.setAccessible(true);
            Method transitionTo = manager.getClass().getDeclaredMethod("transitionTo", Class.forName(STATE_ENUM));
            transitionTo.setAccessible(true);
            synchronized (manager) {
                transitionTo.invoke(manager, state("INITIALIZING"));
                idAndEpochField.set(manager, idAndEpoch.newInstance(committable.producerId(), committable.epoch()));
                transitionTo.invoke(manager, state("READY"));
                transitionTo.invoke(manager, state("IN_TRANSACTION"));
                // Without it, commitTransaction sends nothing: the flag says records were sent.
                field(manager.getClass(), "transactionStarted").set(manager, true);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : unsupported(e);
        } catch (ReflectiveOperationException e) {
            throw unsupported(e);
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object state(String name) throws ClassNotFoundException {
        return Enum.valueOf((Class<Enum>) Class.forName(STATE_ENUM), name);
    }

    private static UnsupportedOperationException unsupported(Exception cause) {
        return new UnsupportedOperationException("the Kafka sink's exactly-once delivery does not support this"
                + " kafka-clients version (" + KafkaProducer.class.getPackage().getImplementationVersion()
                + "): " + cause + "; use kafka-clients 4.4 or delivery AT_LEAST_ONCE", cause);
    }
}

package io.duraflow.kafka.sink;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.sink.Committer;
import io.duraflow.api.sink.CommittingSinkWriter;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.TwoPhaseCommittingSink;
import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a flow's records to Kafka with the chosen {@link DeliveryGuarantee}. Built with {@link
 * #builder()}:
 *
 * <pre>{@code
 * flow.sinkTo("to-kafka", KafkaSink.<Order>builder()
 *         .bootstrapServers("broker-1:9092,broker-2:9092")
 *         .serializer(KafkaRecordSerializer.json("orders-out"))
 *         .delivery(DeliveryGuarantee.EXACTLY_ONCE)
 *         .transactionalIdPrefix("orders-enricher")
 *         .build());
 * }</pre>
 *
 * <p>Exactly once: each subtask writes into a Kafka transaction that a checkpoint barrier
 * precommits and the checkpoint's completion commits, so {@code read_committed} consumers see
 * records once, a checkpoint interval after they were written. The checkpoint stores each
 * precommitted transaction (its transactional id, producer id and epoch); a restore commits them
 * again, which is idempotent. On every start a subtask aborts the transactions that earlier
 * attempts left open under the prefix, found by listing the broker's open transactions (so also
 * those of subtasks a rescale removed). Transactional ids are {@code <prefix>-<subtask>-<n>}, a
 * few per subtask reused from checkpoint to checkpoint: the prefix must be unique per job writing
 * to the cluster. How and why: docs/kafka.md.
 *
 * @param <T> the flow's records
 */
public final class KafkaSink<T> implements TwoPhaseCommittingSink<T, KafkaCommittable> {
    /** The transaction timeout the sink sets unless the properties do: the broker's default maximum. */
    static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]+");

    private final String bootstrapServers;
    private final KafkaRecordSerializer<T> serializer;
    private final DeliveryGuarantee delivery;
    private final String transactionalIdPrefix;
    private final Map<String, String> properties;
    /** Precommitted transactions whose producers still run in this process, by committable. */
    private final ConcurrentMap<KafkaCommittable, KafkaSinkWriter.LiveTransaction> live = new ConcurrentHashMap<>();

    private KafkaSink(Builder<T> builder) {
        this.bootstrapServers = builder.bootstrapServers;
        this.serializer = builder.serializer;
        this.delivery = builder.delivery;
        this.transactionalIdPrefix = builder.transactionalIdPrefix;
        this.properties = Map.copyOf(builder.properties);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    @Override
    public CommittingSinkWriter<T, KafkaCommittable> createWriter(SinkContext context) {
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
            ProducerInternals.check();
            checkTransactionTimeout(context);
        }
        return new KafkaSinkWriter<>(this, producerProperties(),
                transactionalIdPrefix + "-" + context.subtaskIndex());
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(SinkContext context) {
        return new KafkaCommitter(live, new BrokerTakeUp(producerProperties(), bootstrapServers),
                transactionalIdPrefix, transactionTimeout().toMillis(), context.metrics());
    }

    @Override
    public TypeSerializer<KafkaCommittable> committableSerializer() {
        return KafkaCommittable.SERIALIZER;
    }

    /** Aborts the transactions earlier attempts left open, of this subtask and of subtasks a rescale removed. */
    @Override
    public void cleanUpLeftovers(SinkContext context, List<KafkaCommittable> restoredCommittables,
            Set<String> restoredJobIds) throws Exception {
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
            int aborted = new LingeringTransactions(this).abort(context.subtaskIndex(), context.parallelism());
            context.metrics().counter("kafka_sink_lingering_transactions_aborted", "Kafka transactions that earlier"
                    + " attempts left open, aborted by the sink's start").inc(aborted);
        }
    }

    @Override
    public String description() {
        // Property keys only: values may be credentials, and the description is shown and stored.
        return "kafka(" + bootstrapServers + "," + delivery + "," + transactionalIdPrefix + ","
                + serializer.description() + "," + new TreeMap<>(properties).keySet() + ")";
    }

    private void checkTransactionTimeout(SinkContext context) {
        Optional<Duration> interval = context.checkpointInterval();
        if (interval.isEmpty()) {
            return;
        }
        Duration needed = interval.get().plus(context.checkpointTimeout());
        Duration timeout = transactionTimeout();
        if (timeout.compareTo(needed) <= 0) {
            throw new NonRetriableException("the Kafka sink's transaction.timeout.ms (" + timeout.toMillis()
                    + " ms) must be longer than execution.checkpointing.interval plus execution.checkpointing.timeout ("
                    + needed.toMillis() + " ms), or the broker may abort a transaction before its checkpoint"
                    + " completes and lose its records; raise transaction.timeout.ms (up to the broker's"
                    + " transaction.max.timeout.ms) or lower the checkpoint timeout");
        }
    }

    Duration transactionTimeout() {
        String configured = properties.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
        return configured == null ? DEFAULT_TRANSACTION_TIMEOUT : Duration.ofMillis(Long.parseLong(configured.trim()));
    }

    /** What every producer of this sink is configured with (a transactional one adds its id). */
    Properties producerProperties() {
        Properties result = new Properties();
        result.putAll(properties);
        result.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        result.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        result.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
            result.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                    Long.toString(DEFAULT_TRANSACTION_TIMEOUT.toMillis()));
        }
        return result;
    }

    KafkaRecordSerializer<T> serializer() {
        return serializer;
    }

    DeliveryGuarantee delivery() {
        return delivery;
    }

    String transactionalIdPrefix() {
        return transactionalIdPrefix;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    ConcurrentMap<KafkaCommittable, KafkaSinkWriter.LiveTransaction> liveTransactions() {
        return live;
    }

    IllegalStateException topicUnavailable(String topic, Exception cause) {
        return new IllegalStateException("the Kafka sink cannot write to topic " + topic + " on " + bootstrapServers
                + ": " + cause.getMessage() + "; check that the topic exists (or create it) and the brokers are"
                + " reachable", cause);
    }

    IllegalStateException fenced(String transactionalId, Exception cause) {
        return fenced(transactionalIdPrefix, transactionalId, cause);
    }

    static IllegalStateException fenced(String prefix, String transactionalId, Exception cause) {
        return new IllegalStateException("another producer took over Kafka transactional id " + transactionalId
                + ": two jobs (or two sinks of one job) use the transactional id prefix '" + prefix
                + "'; give each its own prefix", cause);
    }

    /** Builds a {@link KafkaSink}; {@link #build()} checks the settings and names what is wrong. */
    public static final class Builder<T> {
        private String bootstrapServers;
        private KafkaRecordSerializer<T> serializer;
        private DeliveryGuarantee delivery = DeliveryGuarantee.AT_LEAST_ONCE;
        private String transactionalIdPrefix;
        private final Map<String, String> properties = new TreeMap<>();

        private Builder() {}

        /** {@code host:port[,host:port...]} of some of the cluster's brokers. */
        public Builder<T> bootstrapServers(String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        public Builder<T> serializer(KafkaRecordSerializer<T> recordSerializer) {
            this.serializer = recordSerializer;
            return this;
        }

        /** Default {@link DeliveryGuarantee#AT_LEAST_ONCE}. */
        public Builder<T> delivery(DeliveryGuarantee guarantee) {
            this.delivery = Objects.requireNonNull(guarantee, "delivery");
            return this;
        }

        /** Required with {@link DeliveryGuarantee#EXACTLY_ONCE}: unique per job writing to the cluster. */
        public Builder<T> transactionalIdPrefix(String prefix) {
            this.transactionalIdPrefix = prefix;
            return this;
        }

        /** Any Kafka producer setting, e.g. {@code linger.ms}, {@code compression.type}, {@code transaction.timeout.ms}. */
        public Builder<T> property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
            return this;
        }

        public Builder<T> properties(Map<String, String> settings) {
            settings.forEach(this::property);
            return this;
        }

        public KafkaSink<T> build() {
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("a Kafka sink needs bootstrapServers(\"host:port,...\")");
            }
            if (serializer == null) {
                throw new IllegalArgumentException("a Kafka sink needs a serializer, e.g."
                        + " serializer(KafkaRecordSerializer.strings(\"topic\"))");
            }
            for (String managed : List.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
                if (properties.containsKey(managed)) {
                    throw new IllegalArgumentException("the Kafka sink sets " + managed + " itself; remove it from"
                            + " its properties (" + switch (managed) {
                                case ProducerConfig.BOOTSTRAP_SERVERS_CONFIG -> "use bootstrapServers(...)";
                                case ProducerConfig.TRANSACTIONAL_ID_CONFIG -> "use transactionalIdPrefix(...)";
                                default -> "use serializer(...)";
                            } + ")");
                }
            }
            String timeout = properties.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
            if (timeout != null && !timeout.trim().matches("\\d{1,12}")) {
                throw new IllegalArgumentException("the Kafka sink's transaction.timeout.ms must be a number of"
                        + " milliseconds, got '" + timeout + "'");
            }
            if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
                if (transactionalIdPrefix == null || !PREFIX.matcher(transactionalIdPrefix).matches()) {
                    throw new IllegalArgumentException("a Kafka sink with delivery EXACTLY_ONCE needs"
                            + " transactionalIdPrefix(...) of letters, digits, '.', '_' or '-', unique per job"
                            + " writing to the cluster; got " + (transactionalIdPrefix == null ? "none"
                                    : "'" + transactionalIdPrefix + "'"));
                }
                if ("false".equalsIgnoreCase(properties.getOrDefault(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"))) {
                    throw new IllegalArgumentException("a Kafka sink with delivery EXACTLY_ONCE needs"
                            + " enable.idempotence=true; remove enable.idempotence=false from its properties");
                }
            } else if (transactionalIdPrefix != null) {
                throw new IllegalArgumentException("transactionalIdPrefix is for delivery EXACTLY_ONCE, and this"
                        + " Kafka sink's delivery is " + delivery + "; remove it or choose EXACTLY_ONCE");
            }
            return new KafkaSink<>(this);
        }
    }
}

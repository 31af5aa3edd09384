package io.duraflow.kafka.source;

import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads Kafka topics with exact positions in every checkpoint: a job restored from a checkpoint
 * neither skips nor repeats a record. Built with {@link #builder()}:
 * <pre>{@code
 * KafkaSource<String> source = KafkaSource.<String>builder()
 *         .bootstrapServers("localhost:9092")
 *         .topics("orders")
 *         .groupId("order-totals")                      // optional
 *         .startingOffsets(OffsetsInitializer.earliest())
 *         .deserializer(KafkaRecordDeserializer.strings())
 *         .build();
 * job.fromSource("orders", source, watermarks);
 * }</pre>
 *
 * <p>The enumerator ({@link KafkaSourceEnumerator}) discovers partitions and gives each to a
 * fixed reader; readers ({@link KafkaSourceReader}) consume them with {@code assign} and {@code
 * seek}, never as group members, and emit each partition's records through its own split output,
 * so event-time watermarks are per partition. Consumer settings: {@code enable.auto.commit} is
 * always false, {@code isolation.level} defaults to {@code read_committed} and {@code
 * auto.offset.reset} (for a checkpointed offset that retention deleted meanwhile) to {@code
 * earliest}.
 *
 * <p>Where a partition starts: the starting offsets for partitions found at the job's start (and
 * for topics added to the subscription before a restore); the earliest offset for partitions that
 * appear later, so that their records are not skipped (see
 * docs/design/exactly-once-sinks-and-sources.md#kafkasource).
 *
 * <p>Failures: a topic listed in {@code topics(...)} that does not exist, or a cluster that does not
 * answer within the client's {@code default.api.timeout.ms}, fails the job at its start with a
 * message naming the topic or the bootstrap servers; later discovery failures are logged and
 * retried. A reader fails when the brokers stop answering for that long, or when a record cannot be
 * deserialized (naming topic, partition, offset and deserializer).
 */
public final class KafkaSource<T> implements Source<T, KafkaPartitionSplit> {
    private static final long DEFAULT_API_TIMEOUT_MS = 60_000;

    private final String bootstrapServers;
    private final KafkaSubscription subscription;
    private final String groupId;
    private final OffsetsInitializer starting;
    private final OffsetsInitializer stopping;
    private final Duration discoveryInterval;
    private final boolean commitOffsetsOnCheckpoint;
    private final Duration pollTimeout;
    /** The user's consumer properties, sorted. */
    private final Map<String, String> properties;
    private final KafkaRecordDeserializer<T> deserializer;
    private final Function<Properties, Consumer<byte[], byte[]>> consumerFactory;
    private final Function<Properties, KafkaMetadata> metadataFactory;

    KafkaSource(KafkaSourceBuilder<T> builder) {
        this(builder, properties -> new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
                new ByteArrayDeserializer()), null);
    }

    /** With other clients than Kafka's (tests); a null metadata factory means the Admin client. */
    KafkaSource(KafkaSourceBuilder<T> builder, Function<Properties, Consumer<byte[], byte[]>> consumerFactory,
            Function<Properties, KafkaMetadata> metadataFactory) {
        this.bootstrapServers = builder.bootstrapServers;
        this.subscription = builder.subscription();
        this.groupId = builder.groupId;
        this.starting = builder.starting;
        this.stopping = builder.stopping;
        this.discoveryInterval = builder.discoveryInterval;
        this.commitOffsetsOnCheckpoint = builder.commitOffsetsOnCheckpoint == null ? groupId != null
                : builder.commitOffsetsOnCheckpoint;
        this.pollTimeout = builder.pollTimeout;
        this.properties = Map.copyOf(builder.properties);
        this.deserializer = builder.deserializer;
        this.consumerFactory = consumerFactory;
        this.metadataFactory = metadataFactory != null ? metadataFactory
                : connection -> AdminKafkaMetadata.create(connection, isolationLevel());
    }

    public static <T> KafkaSourceBuilder<T> builder() {
        return new KafkaSourceBuilder<>();
    }

    /** Same configuration, other clients; for tests. */
    KafkaSource<T> withClients(Function<Properties, Consumer<byte[], byte[]>> consumers,
            Function<Properties, KafkaMetadata> metadata) {
        KafkaSourceBuilder<T> builder = toBuilder();
        return new KafkaSource<>(builder, consumers, metadata);
    }

    private KafkaSourceBuilder<T> toBuilder() {
        KafkaSourceBuilder<T> builder = new KafkaSourceBuilder<>();
        builder.bootstrapServers = bootstrapServers;
        if (subscription instanceof KafkaSubscription.Topics topics) {
            builder.topics = topics.names();
        } else {
            builder.topicPattern = ((KafkaSubscription.TopicPattern) subscription).pattern();
        }
        builder.groupId = groupId;
        builder.starting = starting;
        builder.stopping = stopping;
        builder.discoveryInterval = discoveryInterval;
        builder.commitOffsetsOnCheckpoint = commitOffsetsOnCheckpoint;
        builder.pollTimeout = pollTimeout;
        builder.properties.putAll(properties);
        builder.deserializer = deserializer;
        return builder;
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit> createEnumerator(SplitEnumeratorContext<KafkaPartitionSplit> context) {
        return new KafkaSourceEnumerator(context, enumeratorSettings(),
                () -> metadataFactory.apply(adminProperties()), null);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit> restoreEnumerator(SplitEnumeratorContext<KafkaPartitionSplit> context,
            byte[] state) {
        KafkaEnumeratorState restored = KafkaEnumeratorState.fromBytes(state,
                subscription.description() + " on " + bootstrapServers);
        return new KafkaSourceEnumerator(context, enumeratorSettings(),
                () -> metadataFactory.apply(adminProperties()), restored);
    }

    private KafkaSourceEnumerator.Settings enumeratorSettings() {
        return new KafkaSourceEnumerator.Settings(bootstrapServers, subscription, starting, stopping, groupId,
                discoveryInterval.toMillis());
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) {
        KafkaSourceReader.Settings settings = new KafkaSourceReader.Settings(bootstrapServers, subscription, groupId,
                commitOffsetsOnCheckpoint, pollTimeout, apiTimeoutMs());
        return new KafkaSourceReader<>(context, consumerFactory.apply(consumerProperties()), deserializer, settings,
                System::nanoTime);
    }

    /** What the readers' consumers get: the user's properties and the source's fixed ones. */
    Properties consumerProperties() {
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer.putAll(properties);
        consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (groupId != null) {
            consumer.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        return consumer;
    }

    /** What the enumerator's Admin client gets: the user's properties it knows (security, timeouts). */
    Properties adminProperties() {
        Properties admin = new Properties();
        properties.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                admin.put(key, value);
            }
        });
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return admin;
    }

    private IsolationLevel isolationLevel() {
        return IsolationLevel.valueOf(properties.getOrDefault(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .toUpperCase(Locale.ROOT));
    }

    private long apiTimeoutMs() {
        String timeout = properties.get(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        return timeout == null ? DEFAULT_API_TIMEOUT_MS : Long.parseLong(timeout.trim());
    }

    @Override
    public SplitSerializer<KafkaPartitionSplit> splitSerializer() {
        return KafkaPartitionSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<T> producedType() {
        return deserializer.producedType();
    }

    @Override
    public Boundedness boundedness() {
        return stopping == null ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
    }

    /** The configuration for the plan fingerprint; values of secret properties are left out. */
    @Override
    public String description() {
        Map<String, String> shown = new TreeMap<>();
        properties.forEach((key, value) -> shown.put(key, isSecret(key) ? "<hidden>" : value));
        return "kafka(" + bootstrapServers + "," + subscription.description()
                + (groupId == null ? "" : ",group=" + groupId)
                + ",start=" + starting.description()
                + ",stop=" + (stopping == null ? "none" : stopping.description())
                + (stopping == null ? ",discovery=" + Math.max(0, discoveryInterval.toMillis()) + "ms" : "")
                + ",commit=" + (groupId != null && commitOffsetsOnCheckpoint)
                + ",poll=" + pollTimeout.toMillis() + "ms"
                + ",properties=" + shown
                + ",deserializer=" + deserializer.description() + ")";
    }

    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|secret|jaas|token|credential).*");

    static boolean isSecret(String key) {
        ConfigDef.ConfigKey definition = ConsumerConfig.configDef().configKeys().get(key);
        return definition != null && definition.type == ConfigDef.Type.PASSWORD || SECRET_NAME.matcher(key).matches();
    }
}

package io.duraflow.kafka.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Configures a {@link KafkaSource}; {@link #build()} checks the whole configuration and says, in
 * one line, which setting is wrong and what to do. Not thread-safe; a job builds its sources
 * once per process, so the configuration must not depend on where it runs.
 */
public final class KafkaSourceBuilder<T> {
    /** How often an unbounded source looks for new partitions and topics, unless told otherwise. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(30);
    /** How long a reader's poll waits for records (see {@link KafkaSourceReader}). */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(10);

    /** Properties the builder has a setting for, and the setting. */
    private static final Map<String, String> OWN_SETTINGS = Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "bootstrapServers(...)",
            ConsumerConfig.GROUP_ID_CONFIG, "groupId(...)",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, "deserializer(...)",
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "deserializer(...)");

    String bootstrapServers;
    List<String> topics;
    Pattern topicPattern;
    String groupId;
    OffsetsInitializer starting = OffsetsInitializer.earliest();
    OffsetsInitializer stopping;
    Duration discoveryInterval = DEFAULT_DISCOVERY_INTERVAL;
    Boolean commitOffsetsOnCheckpoint;
    Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
    final Map<String, String> properties = new TreeMap<>();
    KafkaRecordDeserializer<T> deserializer;

    KafkaSourceBuilder() {}

    /** The brokers to connect to first, {@code host:port[,host:port...]}. Required. */
    public KafkaSourceBuilder<T> bootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        return this;
    }

    /** Reads these topics; each must exist when the job starts. */
    public KafkaSourceBuilder<T> topics(String... topics) {
        this.topics = topics == null ? null : List.of(topics);
        return this;
    }

    /** Reads every topic whose whole name matches, including topics created while the job runs. */
    public KafkaSourceBuilder<T> topicPattern(Pattern pattern) {
        this.topicPattern = pattern;
        return this;
    }

    /**
     * The consumer group: needed to start from committed offsets and to commit offsets on
     * checkpoints. The source never joins the group (it assigns partitions itself).
     */
    public KafkaSourceBuilder<T> groupId(String groupId) {
        this.groupId = groupId;
        return this;
    }

    /** Where partitions found at the job's start begin; default {@link OffsetsInitializer#earliest()}. */
    public KafkaSourceBuilder<T> startingOffsets(OffsetsInitializer starting) {
        this.starting = starting;
        return this;
    }

    /**
     * Makes the source bounded: each partition is read up to (not including) these offsets,
     * resolved when the partition is discovered ({@link OffsetsInitializer#latest()}: its end
     * then). A bounded source discovers partitions once.
     */
    public KafkaSourceBuilder<T> bounded(OffsetsInitializer stopping) {
        this.stopping = stopping;
        return this;
    }

    /** How often an unbounded source looks for new partitions; zero or negative: only at the start. */
    public KafkaSourceBuilder<T> partitionDiscoveryInterval(Duration interval) {
        this.discoveryInterval = interval;
        return this;
    }

    /** Whether readers commit a checkpoint's offsets to the group when it completes; default: with a group id. */
    public KafkaSourceBuilder<T> commitOffsetsOnCheckpoint(boolean commit) {
        this.commitOffsetsOnCheckpoint = commit;
        return this;
    }

    /** How long a reader's poll waits for records when there are none; default 10 ms. */
    public KafkaSourceBuilder<T> pollTimeout(Duration timeout) {
        this.pollTimeout = timeout;
        return this;
    }

    /** Any Kafka consumer property (security, timeouts, fetch sizes, {@code isolation.level}, ...). */
    public KafkaSourceBuilder<T> property(String key, String value) {
        if (key == null || value == null) {
            throw new IllegalArgumentException("a Kafka consumer property needs a key and a value, got " + key
                    + "=" + value);
        }
        properties.put(key, value);
        return this;
    }

    public KafkaSourceBuilder<T> properties(Map<String, String> properties) {
        properties.forEach(this::property);
        return this;
    }

    /** Turns Kafka records into the source's records; required. */
    public KafkaSourceBuilder<T> deserializer(KafkaRecordDeserializer<T> deserializer) {
        this.deserializer = deserializer;
        return this;
    }

    /** @throws IllegalArgumentException naming the setting that is missing or wrong */
    public KafkaSource<T> build() {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            fail("needs bootstrapServers(\"host:9092\"): the brokers to connect to");
        }
        if (topics != null && topicPattern != null) {
            fail("has both topics(...) and topicPattern(...); use one of them");
        }
        if (topics == null && topicPattern == null) {
            fail("needs topics(...) or topicPattern(...): what to read");
        }
        if (topics != null) {
            checkTopics();
        }
        if (groupId != null && groupId.isBlank()) {
            fail("has a blank groupId; give a group name or leave groupId unset");
        }
        if (starting == null) {
            fail("has startingOffsets(null); use OffsetsInitializer.earliest(), latest(), ...");
        }
        if (groupId == null && (starting.needsGroupId() || stopping != null && stopping.needsGroupId())) {
            fail("reads committed offsets but has no groupId; set groupId(...) to the group whose offsets to read");
        }
        if (groupId == null && Boolean.TRUE.equals(commitOffsetsOnCheckpoint)) {
            fail("commits offsets on checkpoints but has no groupId; set groupId(...) or commitOffsetsOnCheckpoint(false)");
        }
        if (discoveryInterval == null) {
            fail("has partitionDiscoveryInterval(null); use Duration.ZERO to discover partitions only at the start");
        }
        if (pollTimeout == null || pollTimeout.toMillis() < 1 || pollTimeout.toMillis() > 1000) {
            fail("has pollTimeout " + pollTimeout + "; use 1 ms to 1 s");
        }
        if (deserializer == null) {
            fail("needs deserializer(...), e.g. KafkaRecordDeserializer.strings()");
        }
        checkProperties();
        return new KafkaSource<>(this);
    }

    private void checkTopics() {
        Set<String> distinct = new LinkedHashSet<>();
        for (String topic : topics) {
            if (topic == null || topic.isBlank()) {
                fail("has a null or blank topic in topics(...) " + topics);
            }
            if (!distinct.add(topic)) {
                fail("lists topic '" + topic + "' twice in topics(...)");
            }
        }
        if (distinct.isEmpty()) {
            fail("has topics() without a topic; name at least one");
        }
    }

    private void checkProperties() {
        Set<String> known = ConsumerConfig.configNames();
        for (Map.Entry<String, String> property : properties.entrySet()) {
            String key = property.getKey();
            if (OWN_SETTINGS.containsKey(key)) {
                fail("has property " + key + "; set " + OWN_SETTINGS.get(key) + " instead");
            }
            if (key.equals(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG) && !property.getValue().equals("false")) {
                fail("has enable.auto.commit=" + property.getValue() + ", but it is always false: the positions are"
                        + " in checkpoints; use commitOffsetsOnCheckpoint(true) to show them in the group");
            }
            if (!known.contains(key)) {
                fail("has unknown consumer property '" + key + "'; see the Kafka consumer configs for the names");
            }
        }
        Map<String, Object> all = new TreeMap<>(properties);
        all.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        all.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        all.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try {
            ConsumerConfig.configDef().parse(all);
        } catch (ConfigException e) {
            fail("has an invalid consumer property: " + e.getMessage());
        }
    }

    private static void fail(String what) {
        throw new IllegalArgumentException("the Kafka source " + what);
    }

    /** The subscription {@link #build()} checked. */
    KafkaSubscription subscription() {
        return topics != null ? new KafkaSubscription.Topics(new ArrayList<>(topics))
                : new KafkaSubscription.TopicPattern(topicPattern);
    }
}

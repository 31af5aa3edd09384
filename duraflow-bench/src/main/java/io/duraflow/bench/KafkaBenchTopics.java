package io.duraflow.bench;

import io.duraflow.cli.kafka.KafkaKeyedCount;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The records of {@link KafkaBenchmark}'s input topics and the check of its output topics.
 *
 * <p>Record {@code i} of a topic is key {@code key-<k>} with {@code k} a seeded hash of {@code i}
 * modulo the number of keys, as both the Kafka record's key and its value (UTF-8): the key
 * partitions the topic, so every record of one key is in one partition, in the order produced;
 * the jobs read the value. The same seed and count give the same records, so the count of each
 * key is known without keeping the records.
 */
final class KafkaBenchTopics {
    /** Problems a failed check lists at most. */
    static final int PROBLEMS_SHOWN = 5;

    private KafkaBenchTopics() {}

    /** The key index of record {@code i} (SplitMix64 of seed and index, modulo {@code keys}). */
    static int keyIndex(long seed, long i, int keys) {
        long z = seed + (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (int) Long.remainderUnsigned(z, keys);
    }

    static String key(int keyIndex) {
        return "key-" + keyIndex;
    }

    /** How often each key appears in the first {@code records} records of {@code seed}. */
    static Map<String, Long> counts(long seed, long records, int keys) {
        long[] counts = new long[keys];
        for (long i = 0; i < records; i++) {
            counts[keyIndex(seed, i, keys)]++;
        }
        Map<String, Long> byKey = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            if (counts[k] > 0) {
                byKey.put(key(k), counts[k]);
            }
        }
        return byKey;
    }

    /** Producer settings for filling a topic fast: large batches, idempotent (no duplicates). */
    static Properties producerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return props;
    }

    /** Writes records {@code 0 .. records - 1} of {@code seed} to {@code topic}; returns the milliseconds it took. */
    static long fill(String bootstrap, String topic, long seed, long records, int keys) {
        long start = System.nanoTime();
        Properties props = producerProperties(bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < records && failure.get() == null; i++) {
                byte[] key = key(keyIndex(seed, i, keys)).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, key, key), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("cannot fill topic " + topic + ": " + failure.get(), failure.get());
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * A consumer that reads committed records only, from the start of its partitions; a fetch
     * waits at most {@code fetchMaxWaitMs} for records.
     */
    static KafkaConsumer<byte[], byte[]> committedReader(String bootstrap, int fetchMaxWaitMs) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(fetchMaxWaitMs));
        return new KafkaConsumer<>(props);
    }

    /** Every partition of {@code topic}, assigned to {@code consumer} from its beginning. */
    static List<TopicPartition> assignAll(KafkaConsumer<?, ?> consumer, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }

    /**
     * The committed values of {@code topic} up to its last stable offsets now (every transaction
     * of a finished job is committed or aborted by then).
     */
    static List<String> readCommitted(String bootstrap, String topic) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader(bootstrap, 500)) {
            List<TopicPartition> partitions = assignAll(consumer, topic);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading topic " + topic + " to its end took over 5 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey(), Duration.ofSeconds(30)) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** What is wrong with {@code topic}'s committed output for input {@code counts}; empty if exact. */
    static List<String> check(String bootstrap, String topic, Map<String, Long> counts) {
        return KafkaKeyedCount.check(readCommitted(bootstrap, topic), counts, PROBLEMS_SHOWN);
    }
}

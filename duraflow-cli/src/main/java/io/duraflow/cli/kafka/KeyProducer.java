package io.duraflow.cli.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes {@code records} keys to a topic at {@code ratePerSecond}, on a thread of its own, for
 * the Kafka demo: record {@code i} is {@link #key key(i % keys)}, as both the Kafka key (so a key
 * always goes to the same partition) and the value (what {@link KafkaKeyedCount} counts). Which
 * key came how often is therefore known without reading the topic back ({@link #expectedCounts}).
 *
 * <p>The producer is idempotent (the Kafka client's default, with {@code acks=all}): a send it
 * retries is written once, so the topic holds each record exactly once. A send that fails
 * anyway is kept ({@link #failure}) and stops the thread: the demo's expected counts would be wrong.
 *
 * <p>Threads: the producing thread runs {@link #run}; the others only read the counters and
 * {@link #failure}, and may {@link #close}.
 */
public final class KeyProducer implements AutoCloseable {
    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final long records;
    private final long keys;
    private final long ratePerSecond;
    private final Thread thread;
    /** Records handed to the producer; written by the producing thread only. */
    private final AtomicLong sent = new AtomicLong();
    /** Records the broker acknowledged; written by the producer's I/O thread. */
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile long startedAtNs;
    private volatile long finishedAtNs;

    public KeyProducer(String bootstrap, String topic, long records, long keys, long ratePerSecond) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "demo-input");
        this.producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.records = records;
        this.keys = keys;
        this.ratePerSecond = ratePerSecond;
        this.thread = new Thread(this::run, "produce-" + topic);
        thread.setDaemon(true);
    }

    /** The key of every record {@code i} with {@code i % keys == index}. */
    public static String key(long index) {
        return "key-" + index;
    }

    /** How often each key is in the first {@code records} records. */
    public static Map<String, Long> expectedCounts(long records, long keys) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (long k = 0; k < Math.min(keys, records); k++) {
            counts.put(key(k), records / keys + (k < records % keys ? 1 : 0));
        }
        return counts;
    }

    public void start() {
        startedAtNs = System.nanoTime();
        thread.start();
    }

    private void run() {
        try {
            while (!stopped && sent.get() < records && failure.get() == null) {
                long due = Math.min(records, (System.nanoTime() - startedAtNs) * ratePerSecond / 1_000_000_000L + 1);
                for (long i = sent.get(); i < due && failure.get() == null; i++) {
                    String key = key(i % keys);
                    producer.send(new ProducerRecord<>(topic, key, key), (metadata, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            acknowledged.incrementAndGet();
                        }
                    });
                    sent.set(i + 1);
                }
                if (sent.get() < records) {
                    TimeUnit.MILLISECONDS.sleep(2); // pacing: the next records are not due yet
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        } finally {
            finishedAtNs = System.nanoTime();
        }
    }

    /** Records the broker acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Whether every record was written and acknowledged. */
    public boolean done() {
        return acknowledged.get() == records;
    }

    /** The first send that failed, if any: the topic then lacks records. */
    public Exception failure() {
        return failure.get();
    }

    /** From the start until the last record was acknowledged, or until now. */
    public double seconds() {
        long end = finishedAtNs != 0 && done() ? finishedAtNs : System.nanoTime();
        return (end - startedAtNs) / 1e9;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(TimeUnit.SECONDS.toMillis(30));
        producer.close(java.time.Duration.ofSeconds(5));
    }
}

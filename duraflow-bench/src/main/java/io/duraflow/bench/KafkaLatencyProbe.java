package io.duraflow.bench;

import io.duraflow.cli.kafka.KafkaKeyedCount;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The end-to-end latency of a running keyed count: writes records to its input topic at a fixed
 * rate and reads its output topic with a {@code read_committed} consumer, both in this JVM, and
 * takes for every output record the time from the send of the input record it counts to its
 * arrival here: the time until the engine's transaction holding it is committed and fetched.
 *
 * <p>Which input record an output {@code key-<k>:<n>} counts: the n-th record of key k. The input
 * is keyed, so all records of a key are in one partition in the order sent, and the job counts
 * them in that order; the output needs nothing added, so both engines run the job unchanged.
 *
 * <p>Also checks that every record is visible exactly once ({@link KafkaKeyedCount#check}) once
 * the output has caught up with the input after the last send.
 */
final class KafkaLatencyProbe {
    /** How long the output may take to catch up with the input after the last send. */
    static final Duration CATCH_UP = Duration.ofSeconds(60);
    /** The measuring consumer's fetch.max.wait.ms: small against the latencies measured (a checkpoint interval). */
    static final int FETCH_MAX_WAIT_MS = 20;

    /** Latency percentiles in milliseconds, records sent and seen, and what the check found. */
    record Result(long sent, long seen, double p50Millis, double p99Millis, double maxMillis, List<String> problems) {}

    private final String bootstrap;
    private final String input;
    private final String output;
    private final long seed;
    private final int keys;
    private final long records;
    private final long ratePerSecond;
    /** Key index of each record, and for each key the indexes of its records in order (CSR layout). */
    private final int[] keyOf;
    private final int[] keyStart;
    private final int[] byKey;
    /** System.nanoTime() at each record's send (written by the producer thread before the send). */
    private final long[] sentAtNanos;

    KafkaLatencyProbe(String bootstrap, String input, String output, long seed, int keys, long ratePerSecond,
            Duration duration) {
        this.bootstrap = bootstrap;
        this.input = input;
        this.output = output;
        this.seed = seed;
        this.keys = keys;
        this.ratePerSecond = ratePerSecond;
        this.records = ratePerSecond * duration.toSeconds();
        int n = Math.toIntExact(records);
        keyOf = new int[n];
        keyStart = new int[keys + 1];
        for (int i = 0; i < n; i++) {
            keyOf[i] = KafkaBenchTopics.keyIndex(seed, i, keys);
            keyStart[keyOf[i] + 1]++;
        }
        for (int k = 0; k < keys; k++) {
            keyStart[k + 1] += keyStart[k];
        }
        byKey = new int[n];
        int[] next = Arrays.copyOf(keyStart, keys);
        for (int i = 0; i < n; i++) {
            byKey[next[keyOf[i]]++] = i;
        }
        sentAtNanos = new long[n];
    }

    /** Sends every record at the rate, then waits for the output to catch up; measures meanwhile. */
    Result run() throws InterruptedException {
        long[] latencyNanos = new long[keyOf.length];
        Arrays.fill(latencyNanos, -1);
        List<String> values = new ArrayList<>(keyOf.length);
        AtomicReference<Exception> sendFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> produce(sendFailure), "latency-producer");
        long seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = measuringConsumer()) {
            KafkaBenchTopics.assignAll(consumer, output);
            consumer.poll(Duration.ofMillis(100)); // connected and positioned before the first send
            producer.start();
            long caughtUpBy = Long.MAX_VALUE;
            while (seen < records && System.nanoTime() < caughtUpBy) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    values.add(value);
                    int i = recordOf(value);
                    if (i >= 0 && latencyNanos[i] < 0) {
                        latencyNanos[i] = now - sentAtNanosOf(i);
                    }
                    seen++;
                }
                if (!producer.isAlive() && caughtUpBy == Long.MAX_VALUE) {
                    caughtUpBy = System.nanoTime() + CATCH_UP.toNanos();
                }
            }
        } finally {
            producer.join();
        }
        if (sendFailure.get() != null) {
            throw new IllegalStateException("the latency producer failed: " + sendFailure.get(), sendFailure.get());
        }
        long[] measured = Arrays.stream(latencyNanos).filter(l -> l >= 0).sorted().toArray();
        Map<String, Long> counts = KafkaBenchTopics.counts(seed, records, keys);
        List<String> problems = KafkaKeyedCount.check(values, counts, KafkaBenchTopics.PROBLEMS_SHOWN);
        return new Result(records, seen, percentileMillis(measured, 0.50), percentileMillis(measured, 0.99),
                measured.length == 0 ? Double.NaN : measured[measured.length - 1] / 1e6, problems);
    }

    private synchronized long sentAtNanosOf(int i) {
        return sentAtNanos[i];
    }

    private synchronized void sentAt(int i, long nanos) {
        sentAtNanos[i] = nanos;
    }

    /** The input record an output value counts; -1 for a value that counts none. */
    private int recordOf(String value) {
        int colon = value.lastIndexOf(':');
        if (!value.startsWith("key-") || colon < 0) {
            return -1;
        }
        try {
            int k = Integer.parseInt(value, 4, colon, 10);
            long n = Long.parseLong(value, colon + 1, value.length(), 10);
            if (k < 0 || k >= keys || n < 1 || n > keyStart[k + 1] - keyStart[k]) {
                return -1;
            }
            return byKey[keyStart[k] + (int) n - 1];
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Sends record i at start + i / rate: on time, catching up in a burst after a stall. */
    private void produce(AtomicReference<Exception> failure) {
        Properties props = KafkaBenchTopics.producerProperties(bootstrap);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            long start = System.nanoTime();
            for (int i = 0; i < keyOf.length && failure.get() == null; ) {
                long due = Math.min(keyOf.length, (System.nanoTime() - start) * ratePerSecond / 1_000_000_000L + 1);
                for (; i < due; i++) {
                    byte[] key = KafkaBenchTopics.key(keyOf[i]).getBytes(StandardCharsets.UTF_8);
                    sentAt(i, System.nanoTime());
                    producer.send(new ProducerRecord<>(input, key, key), (metadata, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        }
                    });
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(500));
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Committed records only, fetched soon after a commit (a short maximum wait of the fetch). */
    private KafkaConsumer<byte[], byte[]> measuringConsumer() {
        return KafkaBenchTopics.committedReader(bootstrap, FETCH_MAX_WAIT_MS);
    }

    private static double percentileMillis(long[] sortedNanos, double fraction) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sortedNanos.length - 1, Math.ceil(fraction * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, index)] / 1e6;
    }
}

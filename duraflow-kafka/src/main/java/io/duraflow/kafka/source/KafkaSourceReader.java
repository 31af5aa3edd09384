package io.duraflow.kafka.source;

import io.duraflow.api.functions.Collector;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.NonRetriableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link KafkaSource}'s partitions in a task with one consumer, assigned its partitions
 * by hand ({@code assign} and {@code seek}; no group membership, no rebalances).
 *
 * <p><b>Positions.</b> The next offset of each partition is exactly the consumer's position after
 * the records it returned: with {@code read_committed} the position steps over commit markers and
 * aborted records, which are never returned, so "last offset + 1" would be short of it. A checkpoint
 * holds, per partition, a split starting at that offset: a restored reader neither skips nor repeats
 * a record. A bounded partition is finished when its position reaches its stopping offset (which may
 * point past a commit marker, so the test is {@code >=}); its split is then released.
 *
 * <p><b>Waiting.</b> {@link #pollNext} polls with a short timeout ({@code pollTimeout}, 10 ms by
 * default) instead of {@code Duration.ZERO} and a timer: the consumer's poll returns as soon as a
 * fetch brings records, so a record is emitted within a network round trip of reaching the broker,
 * while an idle reader sleeps in the consumer's selector and costs no CPU. The task's other work
 * (checkpoint triggers, split assignments, commits) does not wait for the timeout: the task calls
 * {@link #wakeUp} when it arrives, which wakes the consumer ({@code wakeup()}) if it is polling
 * (a trigger waited up to 10 ms before, most of a checkpoint's start). After an empty poll the reader says {@link
 * InputStatus#NOTHING_AVAILABLE} with an availability that is already complete: the poll itself
 * was the wait.
 *
 * <p><b>Broker.</b> The consumer retries an unreachable broker forever and polls return nothing.
 * After {@code brokerCheckIntervalMs} without records (the client's {@code default.api.timeout.ms}
 * by default) the reader asks for the partitions' end offsets, a call the client bounds by that
 * timeout; a timeout fails the task with a message naming the bootstrap servers.
 *
 * <p><b>Subscription.</b> Splits of topics the source no longer subscribes to (restored from a
 * savepoint of a job that read other topics) are dropped with a WARN naming them.
 *
 * <p><b>Offsets in the group.</b> With a group id and commit-on-checkpoint, each completed
 * checkpoint's positions are committed to the group, for monitoring only: {@link GroupOffsetCommits}.
 *
 * <p><b>Metrics</b> per partition (position, lag, committed offset): {@link KafkaSourceReaderMetrics}.
 *
 * <p>Single-threaded: the task thread calls every method.
 */
final class KafkaSourceReader<T> implements SourceReader<T, KafkaPartitionSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);
    private static final CompletionStage<Void> AVAILABLE_NOW = CompletableFuture.completedFuture(null);

    /**
     * @param groupId null when the source has none
     * @param brokerCheckIntervalMs how long without records before the reader checks the broker answers
     */
    record Settings(String bootstrapServers, KafkaSubscription subscription, String groupId,
            boolean commitOffsetsOnCheckpoint, Duration pollTimeout, long brokerCheckIntervalMs) {
        boolean commits() {
            return groupId != null && commitOffsetsOnCheckpoint;
        }
    }

    /** An assigned partition being read. */
    private static final class PartitionReader<T> {
        final TopicPartition partition;
        final String splitId;
        final long stoppingOffset;
        long nextOffset;
        /** Taken when the partition's first records are emitted. */
        ReaderOutput.SplitOutput<T> output;

        PartitionReader(KafkaPartitionSplit split) {
            this.partition = split.topicPartition();
            this.splitId = split.splitId();
            this.stoppingOffset = split.stoppingOffset();
            this.nextOffset = split.startingOffset();
        }

        boolean finished() {
            return nextOffset >= stoppingOffset;
        }

        KafkaPartitionSplit split() {
            return new KafkaPartitionSplit(partition.topic(), partition.partition(), nextOffset, stoppingOffset);
        }
    }

    /** Hands a deserializer's records to a split's output with the Kafka record's timestamp. */
    private static final class Emitter<T> implements Collector<T> {
        ReaderOutput.SplitOutput<T> output;
        long timestamp;

        @Override
        public void collect(T record) {
            output.collect(record, timestamp);
        }
    }

    private final SourceReaderContext context;
    private final Consumer<byte[], byte[]> consumer;
    private final KafkaRecordDeserializer<T> deserializer;
    private final Settings settings;
    private final LongSupplier nanoClock;
    private final Map<TopicPartition, PartitionReader<T>> partitions = new LinkedHashMap<>();
    /** Final positions of the bounded partitions this reader finished, committed with every checkpoint. */
    private final Map<TopicPartition, Long> finished = new HashMap<>();
    private final Emitter<T> emitter = new Emitter<>();
    private final KafkaSourceReaderMetrics metrics;
    private final GroupOffsetCommits commits;
    private boolean noMoreSplits;
    private long lastContactNanos;
    /** Guards {@link #polling} and {@link #wokenUp}, the only state {@link #wakeUp} touches from other threads. */
    private final Object wakeUpLock = new Object();
    /** Whether the task thread is in (or about to enter) the consumer's poll. */
    private boolean polling;
    /** Whether this poll was woken up already: one {@code consumer.wakeup()} per poll. */
    private boolean wokenUp;

    KafkaSourceReader(SourceReaderContext context, Consumer<byte[], byte[]> consumer,
            KafkaRecordDeserializer<T> deserializer, Settings settings, LongSupplier nanoClock) {
        this.context = context;
        this.consumer = consumer;
        this.deserializer = deserializer;
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.lastContactNanos = nanoClock.getAsLong();
        this.metrics = new KafkaSourceReaderMetrics(context.metrics(), consumer);
        this.commits = new GroupOffsetCommits(consumer, settings, metrics);
    }

    /** Splits are pushed by the enumerator; the request only says this reader runs. */
    @Override
    public void start() {
        context.sendSplitRequest();
    }

    @Override
    public void addSplits(List<KafkaPartitionSplit> splits) {
        List<PartitionReader<T>> added = new ArrayList<>();
        for (KafkaPartitionSplit split : splits) {
            if (!settings.subscription().matches(split.topic())) {
                LOG.warn("Kafka source: dropping partition {} at offset {}: topic '{}' is not subscribed any more"
                        + " ({}); its records are not read", split.splitId(), split.startingOffset(), split.topic(),
                        settings.subscription().description());
                continue;
            }
            if (partitions.containsKey(split.topicPartition())) {
                throw new IllegalStateException("Kafka partition " + split.splitId()
                        + " was assigned twice to the same reader");
            }
            PartitionReader<T> reader = new PartitionReader<>(split);
            metrics.assigned(reader.partition, this::position, partitions::containsKey);
            if (reader.finished()) {
                finished.put(reader.partition, reader.nextOffset);
                continue;
            }
            partitions.put(reader.partition, reader);
            added.add(reader);
        }
        if (!added.isEmpty()) {
            consumer.assign(new ArrayList<>(partitions.keySet()));
            for (PartitionReader<T> reader : added) {
                consumer.seek(reader.partition, reader.nextOffset);
            }
            commits.assigned(partitions.keySet());
        }
    }

    /** The next offset of a partition being read, its final one if finished, else null. */
    private Long position(TopicPartition partition) {
        PartitionReader<T> reader = partitions.get(partition);
        return reader != null ? Long.valueOf(reader.nextOffset) : finished.get(partition);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (partitions.isEmpty()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        ConsumerRecords<byte[], byte[]> records = pollRecords();
        int emitted = 0;
        for (TopicPartition partition : records.partitions()) {
            PartitionReader<T> reader = partitions.get(partition);
            if (reader != null) {
                emitted += emit(reader, records.records(partition), output);
            }
        }
        List<PartitionReader<T>> done = new ArrayList<>();
        for (PartitionReader<T> reader : partitions.values()) {
            if (!reader.finished()) {
                advanceToPosition(reader);
            }
            if (reader.finished()) {
                done.add(reader);
            }
        }
        if (!done.isEmpty()) {
            release(done, output);
        }
        if (partitions.isEmpty() && noMoreSplits) {
            return InputStatus.END_OF_INPUT;
        }
        long now = nanoClock.getAsLong();
        if (emitted > 0) {
            lastContactNanos = now;
            return InputStatus.MORE_AVAILABLE;
        }
        if (!partitions.isEmpty()
                && now - lastContactNanos >= TimeUnit.MILLISECONDS.toNanos(settings.brokerCheckIntervalMs())) {
            checkBroker();
            lastContactNanos = nanoClock.getAsLong();
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    /**
     * The consumer's poll, cut short by {@link #wakeUp}. A wake-up that comes after the poll got
     * its records would make the consumer's next blocking call throw instead (a position, an end
     * offset): it is used up here, by a poll that throws at once.
     */
    private ConsumerRecords<byte[], byte[]> pollRecords() {
        synchronized (wakeUpLock) {
            polling = true;
            wokenUp = false;
        }
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(settings.pollTimeout());
        } catch (WakeupException e) {
            synchronized (wakeUpLock) {
                polling = false;
            }
            return ConsumerRecords.empty();
        }
        boolean pending;
        synchronized (wakeUpLock) {
            polling = false;
            pending = wokenUp;
        }
        if (pending) {
            try {
                ConsumerRecords<byte[], byte[]> more = consumer.poll(Duration.ZERO);
                if (!more.isEmpty()) {
                    return concat(records, more); // the wake-up was used up inside the first poll after all
                }
            } catch (WakeupException expected) {
                // used up
            }
        }
        return records;
    }

    private static ConsumerRecords<byte[], byte[]> concat(ConsumerRecords<byte[], byte[]> first,
            ConsumerRecords<byte[], byte[]> second) {
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> all = new LinkedHashMap<>();
        for (ConsumerRecords<byte[], byte[]> part : List.of(first, second)) {
            for (TopicPartition partition : part.partitions()) {
                all.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(part.records(partition));
            }
        }
        return new ConsumerRecords<>(all, Map.of());
    }

    /** Any thread: a {@link #pollNext} waiting in the consumer's poll returns now (see the interface). */
    @Override
    public void wakeUp() {
        synchronized (wakeUpLock) {
            if (polling && !wokenUp) {
                wokenUp = true;
                consumer.wakeup();
            }
        }
    }

    /** Emits a partition's records before its stopping offset; returns how many Kafka records it took. */
    private int emit(PartitionReader<T> reader, List<ConsumerRecord<byte[], byte[]>> records, ReaderOutput<T> output) {
        if (reader.output == null) {
            reader.output = output.forSplit(reader.splitId);
        }
        emitter.output = reader.output;
        int count = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.offset() >= reader.stoppingOffset) {
                reader.nextOffset = reader.stoppingOffset;
                break;
            }
            emitter.timestamp = record.timestamp();
            try {
                deserializer.deserialize(record, emitter);
            } catch (Exception e) {
                // Not retried: a restarted job would read the same record and fail the same way.
                throw new NonRetriableException("cannot deserialize the value at " + reader.splitId + " offset "
                        + record.offset() + " with " + deserializer.description() + ": " + oneLine(e)
                        + "; fix the deserializer or the data (a restarted job reads this record again)", e);
            }
            reader.nextOffset = record.offset() + 1;
            count++;
        }
        return count;
    }

    /**
     * Moves a partition's next offset to the consumer's position, which is past commit markers
     * and aborted records the poll stepped over. A position the consumer does not know at once
     * (it is resetting an out-of-range offset) leaves the offset as the records set it.
     */
    private void advanceToPosition(PartitionReader<T> reader) {
        try {
            long position = consumer.position(reader.partition, Duration.ZERO);
            reader.nextOffset = Math.min(position, reader.stoppingOffset);
        } catch (TimeoutException e) {
            // Unknown until the consumer resets it; the next poll tells.
        }
    }

    private void release(List<PartitionReader<T>> done, ReaderOutput<T> output) {
        for (PartitionReader<T> reader : done) {
            partitions.remove(reader.partition);
            finished.put(reader.partition, reader.nextOffset);
            if (reader.output != null) {
                output.releaseSplit(reader.splitId);
            }
            LOG.info("Kafka source: partition {} finished at offset {}", reader.splitId, reader.nextOffset);
        }
        consumer.assign(new ArrayList<>(partitions.keySet()));
    }

    /** Asks for end offsets, which the client bounds by its timeout; fails the task if nobody answers. */
    private void checkBroker() {
        try {
            consumer.endOffsets(new ArrayList<>(partitions.keySet()));
        } catch (TimeoutException e) {
            throw new KafkaSourceException("cannot reach Kafka at " + settings.bootstrapServers()
                    + " to read partitions " + partitionNames() + ": no answer within the client's timeout"
                    + " (default.api.timeout.ms): " + oneLine(e) + "; check bootstrap.servers and that the brokers run",
                    e);
        }
    }

    private List<String> partitionNames() {
        List<String> names = new ArrayList<>();
        partitions.values().forEach(reader -> names.add(reader.splitId));
        return names;
    }

    @Override
    public CompletionStage<Void> isAvailable() {
        return partitions.isEmpty() && !noMoreSplits ? WAIT_FOR_SPLITS : AVAILABLE_NOW;
    }

    @Override
    public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
        List<KafkaPartitionSplit> splits = new ArrayList<>(partitions.size());
        Map<TopicPartition, Long> offsets = new HashMap<>(finished);
        for (PartitionReader<T> reader : partitions.values()) {
            splits.add(reader.split());
            offsets.put(reader.partition, reader.nextOffset);
        }
        commits.snapshotted(checkpointId, offsets);
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        commits.completed(checkpointId);
    }

    /** The exception's class and the first line of its message (Jackson's run on for lines). */
    static String oneLine(Throwable e) {
        String message = e.getMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        int newline = message.indexOf('\n');
        return e.getClass().getSimpleName() + ": " + (newline < 0 ? message : message.substring(0, newline).trim());
    }

    /**
     * Closes the consumer without waiting for anything once the last commit is made ({@link
     * GroupOffsetCommits#commitLastBeforeClose}). A bounded reader's last fetch sits at the broker
     * for {@code fetch.max.wait.ms} (500 ms by default) waiting for records that never come, and a
     * plain {@code close} waited for it to end its fetch session, which held up the end of every
     * bounded job by up to half a second. The session ends with the connection anyway.
     */
    @Override
    public void close() {
        try {
            commits.commitLastBeforeClose();
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
    }

    /** The offsets remembered for checkpoints not completed yet; for tests. */
    Map<Long, Map<TopicPartition, Long>> pendingCommits() {
        return commits.pending();
    }
}

package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SourceReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class KafkaSourceReaderTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final KafkaSubscription ORDERS = new KafkaSubscription.Topics(List.of("orders"));
    private static final long CHECK_INTERVAL_MS = 60_000;

    private final FakeReaderContext context = new FakeReaderContext();
    private final AtomicLong nanos = new AtomicLong();
    private MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");

    private <T> KafkaSourceReader<T> reader(KafkaRecordDeserializer<T> deserializer, String groupId) {
        var settings = new KafkaSourceReader.Settings("broker-1:9092", ORDERS, groupId, true, Duration.ofMillis(10),
                CHECK_INTERVAL_MS);
        return new KafkaSourceReader<>(context, consumer, deserializer, settings, nanos::get);
    }

    private KafkaSourceReader<String> strings() {
        return reader(KafkaRecordDeserializer.strings(), null);
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition partition, long offset, String value) {
        return new ConsumerRecord<>(partition.topic(), partition.partition(), offset, 1000 + offset,
                TimestampType.CREATE_TIME, 0, value.length(), null, value.getBytes(StandardCharsets.UTF_8),
                new RecordHeaders(), Optional.empty());
    }

    private void add(TopicPartition partition, long from, long to) {
        for (long offset = from; offset < to; offset++) {
            consumer.addRecord(record(partition, offset, partition.partition() + ":" + offset));
        }
    }

    @Test
    void emitsEachPartitionsRecordsThroughItsSplitWithTheRecordTimestamps() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.start();
        assertThat(context.splitRequests).isEqualTo(1);
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0), KafkaPartitionSplit.unbounded(ORDERS_1, 5)));
        add(ORDERS_0, 0, 2);
        add(ORDERS_1, 5, 6);
        RecordingOutput<String> output = new RecordingOutput<>();

        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);

        assertThat(output.emitted).containsExactlyInAnyOrder(
                new RecordingOutput.Emitted<>("orders-0", "0:0", 1000),
                new RecordingOutput.Emitted<>("orders-0", "0:1", 1001),
                new RecordingOutput.Emitted<>("orders-1", "1:5", 1005));
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(reader.isAvailable().toCompletableFuture()).isDone();
    }

    @Test
    void aWakeUpDuringThePollEndsItWithNothingAndSkipsNoRecord() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.start();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        RecordingOutput<String> output = new RecordingOutput<>();
        consumer.schedulePollTask(() -> {
            add(ORDERS_0, 0, 2);
            reader.wakeUp(); // the task got a mail while the reader polled
        });

        assertThat(reader.pollNext(output)).as("the poll ended by the wake-up").isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(reader.isAvailable().toCompletableFuture()).as("the mail runs before the next poll").isDone();
        assertThat(output.emitted).isEmpty();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.emitted).extracting(RecordingOutput.Emitted::value).containsExactly("0:0", "0:1");
        assertThat(reader.snapshotState(1)).containsExactly(KafkaPartitionSplit.unbounded(ORDERS_0, 2));
    }

    @Test
    void aWakeUpWhileNoPollRunsLeavesTheNextPollAlone() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.start();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 1);

        reader.wakeUp();

        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.MORE_AVAILABLE);
    }

    @Test
    void aWakeUpThatCameAfterThePollHadItsRecordsIsUsedUpThere() throws Exception {
        java.util.concurrent.atomic.AtomicReference<KafkaSourceReader<String>> under =
                new java.util.concurrent.atomic.AtomicReference<>();
        consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
                ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
                if (!records.isEmpty()) {
                    under.get().wakeUp(); // the mail came just as the poll returned its records
                }
                return records;
            }
        };
        KafkaSourceReader<String> reader = strings();
        under.set(reader);
        reader.start();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 2);
        RecordingOutput<String> output = new RecordingOutput<>();

        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        add(ORDERS_0, 2, 3);
        // Left pending, the wake-up would have ended this poll with nothing instead.
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.emitted).extracting(RecordingOutput.Emitted::value).containsExactly("0:0", "0:1", "0:2");
    }

    @Test
    void withoutSplitsItWaitsForSplits() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.start();
        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat((Object) reader.isAvailable()).isSameAs(SourceReader.WAIT_FOR_SPLITS);
        reader.notifyNoMoreSplits();
        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.END_OF_INPUT);
    }

    @Test
    void aRestoredReaderContinuesExactlyAtTheSnapshotOffsets() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0), KafkaPartitionSplit.unbounded(ORDERS_1, 0)));
        add(ORDERS_0, 0, 10);
        add(ORDERS_1, 0, 10);
        consumer.setMaxPollRecords(7);
        RecordingOutput<String> before = new RecordingOutput<>();
        reader.pollNext(before);
        List<KafkaPartitionSplit> snapshot = reader.snapshotState(1);
        assertThat(snapshot).hasSize(2);
        long read = snapshot.stream().mapToLong(KafkaPartitionSplit::startingOffset).sum();
        assertThat(read).isEqualTo(7);
        reader.close();

        consumer = new MockConsumer<>("earliest");
        KafkaSourceReader<String> restored = strings();
        restored.addSplits(snapshot);
        add(ORDERS_0, 0, 10);
        add(ORDERS_1, 0, 10);
        RecordingOutput<String> after = new RecordingOutput<>();
        while (restored.pollNext(after) == InputStatus.MORE_AVAILABLE) {
            // read what is there
        }
        assertThat(after.values()).hasSize(13).doesNotContainAnyElementsOf(before.values());
        List<String> all = new java.util.ArrayList<>(before.values());
        all.addAll(after.values());
        assertThat(all).hasSize(20).doesNotHaveDuplicates();
        assertThat(restored.snapshotState(2)).containsExactlyInAnyOrder(
                KafkaPartitionSplit.unbounded(ORDERS_0, 10), KafkaPartitionSplit.unbounded(ORDERS_1, 10));
    }

    @Test
    void aBoundedPartitionStopsBeforeItsStoppingOffsetAndIsReleased() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(new KafkaPartitionSplit("orders", 0, 1, 4),
                new KafkaPartitionSplit("orders", 1, 3, 3))); // the second is empty: done at once
        add(ORDERS_0, 0, 8);
        RecordingOutput<String> output = new RecordingOutput<>();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.values()).containsExactly("0:1", "0:2", "0:3");
        assertThat(output.released).containsExactly("orders-0");
        assertThat(reader.snapshotState(1)).isEmpty();
        assertThat(consumer.assignment()).isEmpty();

        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        reader.notifyNoMoreSplits();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }

    @Test
    void aBoundedPartitionWhoseLastOffsetIsACommitMarkerFinishesByItsPosition() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(new KafkaPartitionSplit("orders", 0, 0, 3)));
        reader.notifyNoMoreSplits();
        add(ORDERS_0, 0, 2); // offset 2 is a transaction's commit marker, never returned
        RecordingOutput<String> output = new RecordingOutput<>();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(reader.snapshotState(1)).containsExactly(new KafkaPartitionSplit("orders", 0, 2, 3));

        consumer.schedulePollTask(() -> consumer.seek(ORDERS_0, 3)); // a poll that steps over the marker
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(output.values()).containsExactly("0:0", "0:1");
        assertThat(output.released).containsExactly("orders-0");
    }

    @Test
    void theOffsetsOfACheckpointAreCommittedWhenItCompletes() throws Exception {
        KafkaSourceReader<String> reader = reader(KafkaRecordDeserializer.strings(), "totals");
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 3);
        RecordingOutput<String> output = new RecordingOutput<>();
        reader.pollNext(output);
        reader.snapshotState(1);
        add(ORDERS_0, 3, 5);
        reader.pollNext(output);
        reader.snapshotState(2);
        assertThat(consumer.committed(Set.of(ORDERS_0))).isEmpty();

        reader.notifyCheckpointComplete(1);
        assertThat(consumer.committed(Set.of(ORDERS_0))).containsEntry(ORDERS_0, new OffsetAndMetadata(3));
        assertThat(reader.pendingCommits()).containsOnlyKeys(2L);

        reader.notifyCheckpointComplete(2);
        assertThat(consumer.committed(Set.of(ORDERS_0))).containsEntry(ORDERS_0, new OffsetAndMetadata(5));
        assertThat(reader.pendingCommits()).isEmpty();
    }

    @Test
    void withoutAGroupNothingIsCommitted() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 3);
        reader.pollNext(new RecordingOutput<>());
        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);
        assertThat(reader.pendingCommits()).isEmpty();
        assertThat(consumer.committed(Set.of(ORDERS_0))).isEmpty();
    }

    @Test
    void aFailedCommitIsOnlyLogged() throws Exception {
        consumer = new CommitRefusingConsumer();
        KafkaSourceReader<String> reader = reader(KafkaRecordDeserializer.strings(), "totals");
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        add(ORDERS_0, 0, 1);
        reader.pollNext(new RecordingOutput<>());
        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);
        assertThat(reader.pendingCommits()).isEmpty();
    }

    public record Order(String id, long amount) {}

    @Test
    void aRecordThatCannotBeDeserializedFailsNamingItsPlaceAndTheDeserializer() {
        KafkaSourceReader<Order> reader = reader(KafkaRecordDeserializer.json(Order.class), null);
        TopicPartition orders2 = new TopicPartition("orders", 2);
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(orders2, 1234)));
        consumer.addRecord(record(orders2, 1234, "{\"id\": \"a\", \"amount\": \"many\"}"));
        assertThatThrownBy(() -> reader.pollNext(new RecordingOutput<>()))
                .as("not retried: a restarted job would meet the same record")
                .isInstanceOf(io.duraflow.api.NonRetriableException.class)
                .hasMessageStartingWith("cannot deserialize the value at orders-2 offset 1234 with json("
                        + Order.class.getName() + "): InvalidFormatException: Cannot deserialize value of type `long`")
                .hasMessageEndingWith("; fix the deserializer or the data (a restarted job reads this record again)")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void splitsOfTopicsNoLongerSubscribedAreDropped() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(new TopicPartition("payments", 0), 5),
                KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        assertThat(consumer.assignment()).containsExactly(ORDERS_0);
        assertThat(reader.snapshotState(1)).containsExactly(KafkaPartitionSplit.unbounded(ORDERS_0, 0));
    }

    @Test
    void aReaderWithoutRecordsForTheApiTimeoutChecksTheBrokerAndFailsNamingIt() throws Exception {
        consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
                throw new TimeoutException("Failed to get offsets by times in 60000ms");
            }
        };
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        nanos.addAndGet(Duration.ofMillis(CHECK_INTERVAL_MS).toNanos());
        assertThatThrownBy(() -> reader.pollNext(new RecordingOutput<>()))
                .isInstanceOf(KafkaSourceException.class)
                .hasMessage("cannot reach Kafka at broker-1:9092 to read partitions [orders-0]: no answer within the"
                        + " client's timeout (default.api.timeout.ms): TimeoutException: Failed to get offsets by times"
                        + " in 60000ms; check bootstrap.servers and that the brokers run");
    }

    @Test
    void aReachableBrokerPassesTheCheck() throws Exception {
        KafkaSourceReader<String> reader = strings();
        reader.addSplits(List.of(KafkaPartitionSplit.unbounded(ORDERS_0, 0)));
        consumer.updateEndOffsets(Map.of(ORDERS_0, 0L));
        nanos.addAndGet(Duration.ofMillis(CHECK_INTERVAL_MS).toNanos());
        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        add(ORDERS_0, 0, 1);
        assertThat(reader.pollNext(new RecordingOutput<>())).isEqualTo(InputStatus.MORE_AVAILABLE);
    }
}

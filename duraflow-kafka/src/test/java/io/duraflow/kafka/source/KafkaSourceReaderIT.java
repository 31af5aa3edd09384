package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.source.InputStatus;
import io.duraflow.kafka.SharedKafkaBroker;
import io.duraflow.kafka.TestTopics;
import io.duraflow.kafka.local.LocalKafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reader with a real consumer against a real broker: what only the broker's timing shows. */
class KafkaSourceReaderIT {
    private static final String TOPIC = "reader-close";
    private static final String GROUP = "reader-close-group";
    /** Far longer than the close may take: a close that waits for the last fetch shows at once. */
    private static final int FETCH_MAX_WAIT_MS = 20_000;

    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = SharedKafkaBroker.get();
    }

    @Test
    void aFinishedBoundedReaderClosesWithoutWaitingForItsLastFetchAndKeepsItsLastCommit() throws Exception {
        broker.createTopic(TOPIC, 1);
        TestTopics.produce(broker.bootstrapServers(), TOPIC, IntStream.range(0, 10).mapToObj(i -> "r" + i).toList());
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, GROUP,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(FETCH_MAX_WAIT_MS)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        var settings = new KafkaSourceReader.Settings(broker.bootstrapServers(),
                new KafkaSubscription.Topics(List.of(TOPIC)), GROUP, true, Duration.ofMillis(100), 60_000);
        KafkaSourceReader<String> reader = new KafkaSourceReader<>(new FakeReaderContext(), consumer,
                KafkaRecordDeserializer.strings(), settings, System::nanoTime);
        RecordingOutput<String> output = new RecordingOutput<>();
        reader.start();
        reader.addSplits(List.of(new KafkaPartitionSplit(TOPIC, 0, 0, 10)));
        reader.notifyNoMoreSplits();
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.pollNext(output) == InputStatus.END_OF_INPUT);
        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);

        long start = System.nanoTime();
        reader.close();
        Duration closing = Duration.ofNanos(System.nanoTime() - start);

        assertThat(output.emitted).hasSize(10);
        assertThat(closing).as("the last fetch waits %s ms at the broker", FETCH_MAX_WAIT_MS)
                .isLessThan(Duration.ofSeconds(5));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get();
            assertThat(committed.keySet()).isEqualTo(Set.of(partition));
            assertThat(committed.get(partition).offset()).as("the last checkpoint's commit").isEqualTo(10);
        }
    }
}

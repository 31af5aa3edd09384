package io.duraflow.kafka.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKafkaBrokerIT {

    @TempDir
    Path dir;

    @Test
    void keepsCommittedRecordsThroughKillAndRestartOnTheSamePort() throws Exception {
        try (LocalKafkaBroker broker = LocalKafkaBroker.fromSystemProperty(dir, Map.of())) {
            long started = System.nanoTime();
            broker.start();
            System.out.printf("broker started in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            assertThat(broker.isRunning()).isTrue();
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
            broker.createTopic("numbers", 3);

            List<String> sent = IntStream.range(0, 1000).mapToObj(i -> "v" + i).toList();
            produceInTransaction(broker, sent);
            assertThat(readCommitted(broker, 1000)).containsExactlyInAnyOrderElementsOf(sent);

            broker.kill();
            assertThat(broker.isRunning()).isFalse();
            started = System.nanoTime();
            broker.restart();
            System.out.printf("broker restarted in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            assertThat(broker.isRunning()).isTrue();
            assertThat(readCommitted(broker, 1000)).containsExactlyInAnyOrderElementsOf(sent);

            produceInTransaction(broker, List.of("after restart"));
            assertThat(readCommitted(broker, 1001)).contains("after restart").hasSize(1001);

            broker.deleteTopic("numbers");
            started = System.nanoTime();
            broker.stop();
            System.out.printf("broker stopped in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            assertThat(broker.isRunning()).isFalse();

            int port = Integer.parseInt(broker.bootstrapServers().substring("127.0.0.1:".length()));
            try (ServerSocket taken = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThatThrownBy(broker::start)
                        .hasMessage("port 127.0.0.1:" + port + " is in use: the Kafka broker cannot listen on it");
                assertThat(broker.isRunning()).isFalse();
            }
        }
        assertThat(dir.resolve("broker.log")).exists().isNotEmptyFile();
    }

    /**
     * A topic is usable when createTopic returns: an idempotent producer's first batch to each
     * partition, sent at once, is taken. (Sent while the leader still loaded the partition, it was
     * refused, and every retry after with OUT_OF_ORDER_SEQUENCE_NUMBER.)
     */
    @Test
    void aNewTopicTakesRecordsAtOnce() throws Exception {
        try (LocalKafkaBroker broker = LocalKafkaBroker.fromSystemProperty(dir, Map.of())) {
            broker.start();
            for (int round = 0; round < 5; round++) {
                String topic = "fresh-" + round;
                broker.createTopic(topic, 16);
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
                        new StringSerializer(), new StringSerializer())) {
                    List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
                    for (int i = 0; i < 2_000; i++) {
                        sends.add(producer.send(new ProducerRecord<>(topic, i % 16, null, "v" + i)));
                    }
                    for (java.util.concurrent.Future<?> send : sends) {
                        send.get(); // fails with the batch's error if it expired
                    }
                }
            }
        }
    }

    @Test
    void saysWhatToBuildWhenTheJarsAreMissing() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("lib"));
        assertThatThrownBy(() -> LocalKafkaBroker.create(empty, dir, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no Kafka broker jars in " + empty + "; run ./mvnw -pl duraflow-kafka-broker package");
        assertThatThrownBy(() -> LocalKafkaBroker.create(dir.resolve("missing"), dir, Map.of()))
                .hasMessageStartingWith("no Kafka broker jars in " + dir.resolve("missing"));

        String lib = System.clearProperty(LocalKafkaBroker.LIB_PROPERTY);
        try {
            assertThatThrownBy(() -> LocalKafkaBroker.fromSystemProperty(dir, Map.of()))
                    .hasMessageContaining(LocalKafkaBroker.LIB_PROPERTY)
                    .hasMessageContaining("./mvnw -pl duraflow-kafka-broker package");
        } finally {
            if (lib != null) {
                System.setProperty(LocalKafkaBroker.LIB_PROPERTY, lib);
            }
        }
    }

    @Test
    void reportsAFailedFormat() {
        try (LocalKafkaBroker broker = LocalKafkaBroker.fromSystemProperty(dir, Map.of("node.id", "not-a-number"))) {
            assertThatThrownBy(broker::start)
                    .hasMessageStartingWith("formatting the Kafka broker's storage failed with exit code 1\n")
                    .hasMessageContaining("not-a-number");
        }
    }

    @Test
    void reportsABrokerThatExitsWhileStarting() throws Exception {
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("data").resolve("meta.properties"), "version=99\n");
        try (LocalKafkaBroker broker = LocalKafkaBroker.fromSystemProperty(dir, Map.of())) {
            assertThatThrownBy(broker::start)
                    .hasMessageStartingWith("the Kafka broker exited with code 1 while starting\n")
                    .hasMessageContaining("--- last lines of " + dir.resolve("broker.log"));
            assertThat(broker.isRunning()).isFalse();
        }
    }

    private static void produceInTransaction(LocalKafkaBroker broker, List<String> values) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-" + UUID.randomUUID(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            producer.initTransactions();
            producer.beginTransaction();
            for (String value : values) {
                producer.send(new ProducerRecord<>("numbers", value, value));
            }
            producer.commitTransaction();
        }
    }

    private static List<String> readCommitted(LocalKafkaBroker broker, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            consumer.subscribe(List.of("numbers"));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                return values.size() >= expected;
            });
        }
        return values;
    }
}

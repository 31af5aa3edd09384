package io.duraflow.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KafkaSinkTest {
    private static KafkaSink.Builder<String> exactlyOnce() {
        return KafkaSink.<String>builder().bootstrapServers("127.0.0.1:1")
                .serializer(KafkaRecordSerializer.strings("out")).delivery(DeliveryGuarantee.EXACTLY_ONCE)
                .transactionalIdPrefix("job-a");
    }

    @Test
    void aCommittableRoundTripsAndACorruptOneNamesItsVersion() {
        KafkaCommittable committable = new KafkaCommittable("job-a-3-1", 123_456_789L, (short) 7);
        DataWriter out = new DataWriter(32);
        KafkaCommittable.SERIALIZER.write(committable, out);
        assertThat(KafkaCommittable.SERIALIZER.read(new DataReader(out.toByteArray()))).isEqualTo(committable);

        byte[] bytes = out.toByteArray();
        bytes[0] = 9;
        assertThatThrownBy(() -> KafkaCommittable.SERIALIZER.read(new DataReader(bytes)))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("version 9");
    }

    @Test
    void aCommittableNeedsAnInitializedProducer() {
        assertThatThrownBy(() -> new KafkaCommittable("job-a-0-0", -1, (short) -1))
                .hasMessageContaining("never initialized");
    }

    @Test
    void theBuilderNamesWhatIsMissingOrWrong() {
        assertThatThrownBy(() -> KafkaSink.<String>builder().serializer(KafkaRecordSerializer.strings("t")).build())
                .hasMessageContaining("bootstrapServers");
        assertThatThrownBy(() -> KafkaSink.<String>builder().bootstrapServers("h:1").build())
                .hasMessageContaining("serializer");
        assertThatThrownBy(() -> exactlyOnce().transactionalIdPrefix(null).build())
                .hasMessageContaining("transactionalIdPrefix").hasMessageContaining("got none");
        assertThatThrownBy(() -> exactlyOnce().transactionalIdPrefix("a b").build())
                .hasMessageContaining("got 'a b'");
        assertThatThrownBy(() -> exactlyOnce().property("transactional.id", "x").build())
                .hasMessageContaining("transactional.id").hasMessageContaining("transactionalIdPrefix");
        assertThatThrownBy(() -> exactlyOnce().property("enable.idempotence", "false").build())
                .hasMessageContaining("enable.idempotence=true");
        assertThatThrownBy(() -> exactlyOnce().property("transaction.timeout.ms", "1 min").build())
                .hasMessageContaining("milliseconds");
        assertThatThrownBy(() -> exactlyOnce().delivery(DeliveryGuarantee.AT_LEAST_ONCE).build())
                .hasMessageContaining("transactionalIdPrefix is for delivery EXACTLY_ONCE");
        assertThatThrownBy(() -> KafkaRecordSerializer.strings(" ")).hasMessageContaining("topic");
    }

    @Test
    void theDescriptionHoldsPropertyKeysButNeverTheirValues() {
        KafkaSink<String> sink = exactlyOnce().property("sasl.jaas.config", "secret-password").build();
        assertThat(sink.description()).contains("sasl.jaas.config").doesNotContain("secret-password")
                .contains("EXACTLY_ONCE", "job-a", "strings(out)");
    }

    @Test
    void aTransactionTimeoutThatACheckpointMayOutlastIsRefusedBeforeAnythingConnects() {
        KafkaSink<String> sink = exactlyOnce().property("transaction.timeout.ms", "60000").build();
        assertThatThrownBy(() -> sink.createWriter(context(Duration.ofSeconds(30), Duration.ofSeconds(30))))
                .isInstanceOf(NonRetriableException.class)
                .hasMessageContaining("transaction.timeout.ms (60000 ms)")
                .hasMessageContaining("(60000 ms)");
    }

    @Test
    void theDefaultTransactionTimeoutIsTheBrokersDefaultMaximum() {
        KafkaSink<String> sink = exactlyOnce().build();
        assertThat(sink.transactionTimeout()).isEqualTo(Duration.ofMinutes(15));
        assertThat(sink.producerProperties().getProperty("transaction.timeout.ms")).isEqualTo("900000");
    }

    @Test
    void lingeringTransactionIdsAreReadBackToTheirSubtask() {
        assertThat(LingeringTransactions.subtaskOf("job-a", "job-a-12-3")).isEqualTo(12);
        assertThat(LingeringTransactions.subtaskOf("job-a", "job-a-b-1-3")).isNull();
        assertThat(LingeringTransactions.subtaskOf("job-a", "job-ab-1-3")).isNull();
        assertThat(LingeringTransactions.subtaskOf("job-a", "job-a-1")).isNull();
    }

    @Test
    void theInternalsExactlyOnceNeedsArePresentInThisKafkaClientsVersion() {
        ProducerInternals.check();
    }

    private static SinkContext context(Duration interval, Duration timeout) {
        return new SinkContext() {
            @Override
            public String jobId() {
                return "job";
            }

            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public int attemptNumber() {
                return 0;
            }

            @Override
            public Optional<Duration> checkpointInterval() {
                return Optional.of(interval);
            }

            @Override
            public Duration checkpointTimeout() {
                return timeout;
            }
        };
    }
}

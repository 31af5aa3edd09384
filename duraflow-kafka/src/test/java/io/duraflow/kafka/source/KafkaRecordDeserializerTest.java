package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.junit.jupiter.api.Test;

class KafkaRecordDeserializerTest {
    public record Order(String id, long amount) {}

    public record Basket(String id, List<String> items) {}

    private static ConsumerRecord<byte[], byte[]> record(byte[] key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", "t1".getBytes(StandardCharsets.UTF_8));
        headers.add("empty", null);
        return new ConsumerRecord<>("orders", 2, 7, 1234, TimestampType.CREATE_TIME, 0, 0, key, value, headers,
                Optional.empty());
    }

    private static <T> List<T> read(KafkaRecordDeserializer<T> deserializer, ConsumerRecord<byte[], byte[]> record)
            throws Exception {
        List<T> out = new ArrayList<>();
        deserializer.deserialize(record, out::add);
        return out;
    }

    private static <T> T roundTrip(TypeSerializer<T> type, T value) {
        DataWriter out = new DataWriter();
        type.write(value, out);
        return type.read(new DataReader(out.toByteArray()));
    }

    @Test
    void stringsReadUtf8AndSkipTombstones() throws Exception {
        KafkaRecordDeserializer<String> strings = KafkaRecordDeserializer.strings();
        assertThat(read(strings, record(null, "grüß".getBytes(StandardCharsets.UTF_8)))).containsExactly("grüß");
        assertThat(read(strings, record(null, null))).isEmpty();
        assertThat(strings.producedType()).isSameAs(Types.STRING);
    }

    @Test
    void bytesAndValueOnly() throws Exception {
        assertThat(read(KafkaRecordDeserializer.bytes(), record(null, new byte[] {1, 2}))).singleElement()
                .isEqualTo(new byte[] {1, 2});
        assertThat(roundTrip(KafkaRecordDeserializer.bytes().producedType(), new byte[] {3})).containsExactly(3);
        KafkaRecordDeserializer<Integer> ints = KafkaRecordDeserializer.valueOnly(new IntegerDeserializer(), Types.INT);
        assertThat(read(ints, record(null, new byte[] {0, 0, 1, 0}))).containsExactly(256);
        assertThat(ints.description()).isEqualTo("valueOnly(" + IntegerDeserializer.class.getName() + ",int)");
    }

    @Test
    void jsonReadsIntoARecordAndTravelsAsTheRecord() throws Exception {
        KafkaRecordDeserializer<Order> json = KafkaRecordDeserializer.json(Order.class);
        assertThat(read(json, record(null, "{\"id\":\"a\",\"amount\":5}".getBytes(StandardCharsets.UTF_8))))
                .containsExactly(new Order("a", 5));
        assertThat(json.producedType().description()).startsWith("record(");
        assertThat(json.description()).isEqualTo("json(" + Order.class.getName() + ")");
    }

    @Test
    void jsonOfARecordTypesRecordCannotWriteTravelsAsJsonText() throws Exception {
        KafkaRecordDeserializer<Basket> json = KafkaRecordDeserializer.json(Basket.class);
        Basket basket = new Basket("b", List.of("x", "y"));
        assertThat(read(json, record(null, "{\"id\":\"b\",\"items\":[\"x\",\"y\"]}".getBytes(StandardCharsets.UTF_8))))
                .containsExactly(basket);
        assertThat(json.producedType().description()).isEqualTo("jsonText(" + Basket.class.getName() + ")");
        assertThat(roundTrip(json.producedType(), basket)).isEqualTo(basket);
    }

    @Test
    void recordsKeepEverythingAndRoundTrip() throws Exception {
        List<KafkaMessage> messages = read(KafkaRecordDeserializer.records(), record(new byte[] {9}, null));
        KafkaMessage expected = new KafkaMessage("orders", 2, 7, 1234, new byte[] {9}, null,
                List.of(new KafkaMessage.Header("trace", "t1".getBytes(StandardCharsets.UTF_8)),
                        new KafkaMessage.Header("empty", null)));
        assertThat(messages).containsExactly(expected);
        assertThat(roundTrip(KafkaMessage.SERIALIZER, expected)).isEqualTo(expected);
    }
}

package io.duraflow.kafka.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Turns a record of the job into the Kafka record a {@link KafkaSink} sends: topic, key, value
 * (and optionally partition, timestamp, headers). Called on the task thread; must be
 * deterministic, as the plan is built from the job's class in every process.
 *
 * @param <T> the job's records
 */
public interface KafkaRecordSerializer<T> {
    /** The Kafka record for {@code element}; never null. */
    ProducerRecord<byte[], byte[]> serialize(T element);

    /** Identifies the serializer's configuration for the plan fingerprint, e.g. {@code strings(orders)}. */
    String description();

    /** Each record's {@code toString()} in UTF-8 as the value, no key, to {@code topic}. */
    static <T> KafkaRecordSerializer<T> strings(String topic) {
        requireTopic(topic);
        return of("strings(" + topic + ")",
                element -> new ProducerRecord<>(topic, element.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Key and value from the record, each through its Kafka {@link Serializer} (for example
     * {@code new StringSerializer()}); a null key leaves the partition to the producer's partitioner.
     */
    static <T, K, V> KafkaRecordSerializer<T> keyValue(String topic, Function<T, K> key, Serializer<K> keySerializer,
            Function<T, V> value, Serializer<V> valueSerializer) {
        requireTopic(topic);
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return of("keyValue(" + topic + "," + keySerializer.getClass().getName() + ","
                + valueSerializer.getClass().getName() + ")", element -> {
                    K k = key.apply(element);
                    return new ProducerRecord<>(topic, k == null ? null : keySerializer.serialize(topic, k),
                            valueSerializer.serialize(topic, value.apply(element)));
                });
    }

    /** The record as JSON (Jackson's default mapping of its public fields and record components) as the value. */
    static <T> KafkaRecordSerializer<T> json(String topic) {
        requireTopic(topic);
        ObjectMapper mapper = new ObjectMapper();
        return of("json(" + topic + ")", element -> {
            try {
                return new ProducerRecord<>(topic, mapper.writeValueAsBytes(element));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("cannot write a " + element.getClass().getName()
                        + " as JSON for topic " + topic + ": " + e.getOriginalMessage(), e);
            }
        });
    }

    /** A serializer from a function; {@code description} must change whenever the function's output would. */
    static <T> KafkaRecordSerializer<T> of(String description, Function<T, ProducerRecord<byte[], byte[]>> function) {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(function, "function");
        return new KafkaRecordSerializer<>() {
            @Override
            public ProducerRecord<byte[], byte[]> serialize(T element) {
                return function.apply(element);
            }

            @Override
            public String description() {
                return description;
            }
        };
    }

    private static void requireTopic(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("a Kafka sink needs the topic to write to; got " + topic);
        }
    }
}

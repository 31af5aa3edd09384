package io.duraflow.kafka.source;

/**
 * A {@link KafkaSource} cannot go on: its message is one line that names the topic, partition,
 * setting or bootstrap servers at fault and what to do.
 */
public class KafkaSourceException extends RuntimeException {
    public KafkaSourceException(String message) {
        super(message);
    }

    public KafkaSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}

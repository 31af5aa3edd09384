package io.duraflow.kafka;

import io.duraflow.kafka.local.LocalKafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/**
 * One broker for every integration test class of a test JVM: a start costs 5 to 10 s of a
 * 2-core machine, and the classes use topics and transactional id prefixes of their own. It stops
 * with the JVM ({@link LocalKafkaBroker} kills its process then). A test may kill and restart it.
 */
public final class SharedKafkaBroker {
    private static LocalKafkaBroker broker;

    private SharedKafkaBroker() {}

    /** The running broker, started at the first call. */
    public static synchronized LocalKafkaBroker get() {
        if (broker == null) {
            try {
                broker = LocalKafkaBroker.fromSystemProperty(Files.createTempDirectory("kafka-it"), Map.of());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            broker.start();
        }
        return broker;
    }
}

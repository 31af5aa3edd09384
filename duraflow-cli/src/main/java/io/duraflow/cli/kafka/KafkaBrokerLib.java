package io.duraflow.cli.kafka;

import io.duraflow.cli.CliException;
import io.duraflow.kafka.local.LocalKafkaBroker;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the jars of the Kafka broker that {@code demo kafka-exactly-once} starts are
 * ({@link LocalKafkaBroker}): the module {@code duraflow-kafka-broker} copies them to its
 * {@code target/lib} when the checkout is built, and nothing of Duraflow has them on its class path.
 *
 * <p>Found, in this order: the directory the system property {@value LocalKafkaBroker#LIB_PROPERTY}
 * names ({@code DURAFLOW_JAVA_OPTS=-Dkafka.broker.lib=DIR bin/duraflow ...}); else
 * {@code duraflow-kafka-broker/target/lib} in the checkout this class was loaded from, found by
 * going up from its jar or class directory at most {@link #LEVELS_UP} levels. That covers
 * {@code bin/duraflow} ({@code duraflow-cli/target/lib/duraflow-cli.jar}), the integration tests'
 * child JVMs ({@code duraflow-cli/target/child-jvm/*.jar}) and an IDE
 * ({@code duraflow-cli/target/classes}).
 */
public final class KafkaBrokerLib {
    /** From a jar in {@code <checkout>/duraflow-cli/target/<dir>/} up to the checkout. */
    static final int LEVELS_UP = 4;
    static final String RELATIVE = "duraflow-kafka-broker/target/lib";
    private static final String BUILD = "./mvnw -q -DskipTests package";

    private KafkaBrokerLib() {}

    /** The broker's jar directory; a one-line {@link CliException} saying what to do if there is none. */
    public static Path locate() {
        String property = System.getProperty(LocalKafkaBroker.LIB_PROPERTY);
        if (property != null && !property.isBlank()) {
            Path lib = Path.of(property).toAbsolutePath().normalize();
            if (!hasJars(lib)) {
                throw new CliException("no Kafka broker jars in " + lib + " (the system property "
                        + LocalKafkaBroker.LIB_PROPERTY + "); build them with '" + BUILD + "' in the Duraflow checkout");
            }
            return lib;
        }
        Optional<Path> location = codeLocation();
        if (location.isEmpty()) {
            throw new CliException("cannot tell where Duraflow runs from to find the Kafka broker's jars; name their"
                    + " directory (" + RELATIVE + ") with -D" + LocalKafkaBroker.LIB_PROPERTY + "=DIR in DURAFLOW_JAVA_OPTS");
        }
        return find(location.get());
    }

    /** {@link #RELATIVE} in the checkout at most {@link #LEVELS_UP} levels above {@code location}. */
    static Path find(Path location) {
        Path dir = location.toAbsolutePath().normalize().getParent();
        for (int level = 1; dir != null && level <= LEVELS_UP; level++, dir = dir.getParent()) {
            Path lib = dir.resolve(RELATIVE);
            if (hasJars(lib)) {
                return lib;
            }
            if (Files.isDirectory(dir.resolve("duraflow-kafka-broker"))) {
                throw new CliException("no Kafka broker jars in " + lib + "; build them with '" + BUILD + "' in " + dir);
            }
        }
        throw new CliException("no Duraflow checkout with " + RELATIVE + " above " + location + "; run the demo from"
                + " a checkout built with '" + BUILD + "', or name the broker's jars with -D"
                + LocalKafkaBroker.LIB_PROPERTY + "=DIR in DURAFLOW_JAVA_OPTS");
    }

    private static Optional<Path> codeLocation() {
        try {
            var source = KafkaBrokerLib.class.getProtectionDomain().getCodeSource();
            return source == null || source.getLocation() == null ? Optional.empty()
                    : Optional.of(Path.of(source.getLocation().toURI()));
        } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static boolean hasJars(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(file -> file.getFileName().toString().endsWith(".jar"));
        } catch (IOException e) {
            return false;
        }
    }
}

package io.duraflow.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.cli.CliException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the demo finds the Kafka broker's jars, from where the command line's classes are. */
class KafkaBrokerLibTest {
    @TempDir
    Path checkout;

    @Test
    void foundFromTheJarsOfBinDuraflowAndOfTheTestsChildJvmsAndFromClassDirectories() throws Exception {
        Path lib = Files.createDirectories(checkout.resolve(KafkaBrokerLib.RELATIVE));
        Files.createFile(lib.resolve("kafka_2.13.jar"));

        assertThat(KafkaBrokerLib.find(checkout.resolve("duraflow-cli/target/lib/duraflow-cli.jar"))).isEqualTo(lib);
        assertThat(KafkaBrokerLib.find(checkout.resolve("duraflow-cli/target/child-jvm/duraflow-cli-classes-1.jar")))
                .isEqualTo(lib);
        assertThat(KafkaBrokerLib.find(checkout.resolve("duraflow-cli/target/classes"))).isEqualTo(lib);
    }

    @Test
    void aCheckoutNotBuiltYetIsToldHowToBuildIt() throws Exception {
        Files.createDirectories(checkout.resolve("duraflow-kafka-broker"));

        assertThatThrownBy(() -> KafkaBrokerLib.find(checkout.resolve("duraflow-cli/target/lib/duraflow-cli.jar")))
                .isInstanceOf(CliException.class)
                .hasMessage("no Kafka broker jars in " + checkout.resolve(KafkaBrokerLib.RELATIVE)
                        + "; build them with './mvnw -q -DskipTests package' in " + checkout);
    }

    @Test
    void withoutACheckoutTheErrorSaysHowToNameTheJars() {
        assertThatThrownBy(() -> KafkaBrokerLib.find(checkout.resolve("opt/duraflow/lib/duraflow-cli.jar")))
                .isInstanceOf(CliException.class).hasMessageContaining("-Dkafka.broker.lib=DIR in DURAFLOW_JAVA_OPTS")
                .hasMessageNotContaining("\n");
    }
}

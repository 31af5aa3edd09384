package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.HighAvailabilityOptions.HighAvailabilityType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HighAvailabilityOptionsTest {
    private static final ConfigRegistry REGISTRY = ConfigRegistry.of(HighAvailabilityOptions.class);

    @Test
    void defaults() {
        Configuration config = new Configuration();

        assertThat(config.get(HighAvailabilityOptions.TYPE)).isEqualTo(HighAvailabilityType.NONE);
        assertThat(config.get(HighAvailabilityOptions.CLUSTER_ID)).isEqualTo("default");
        assertThat(config.get(HighAvailabilityOptions.STORAGE_DIR)).isNull();
        assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_QUORUM)).isEqualTo("127.0.0.1:2181");
        assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_ROOT)).isEqualTo("/duraflow");
        assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT)).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT)).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.get(HighAvailabilityOptions.JOB_RESULT_STORE_PATH)).isNull();
        assertThat(config.get(HighAvailabilityOptions.JOB_RESULT_STORE_DELETE_ON_COMMIT)).isFalse();
        assertThat(config.get(HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL)).isNull();
    }

    @Test
    void everyOptionReadsFromText() {
        Configuration config = Configuration.fromMap(Map.of(
                "high-availability.type", "zookeeper",
                "high-availability.cluster-id", "prod_1.eu-west",
                "high-availability.storage-dir", "s3://bucket/ha",
                "high-availability.zookeeper.quorum", "zk1:2181,zk2:2181",
                "high-availability.zookeeper.root", "/flows/duraflow",
                "high-availability.zookeeper.session-timeout", "30 s",
                "high-availability.zookeeper.connection-timeout", "2 s",
                "job-result-store.storage-path", "/results",
                "job-result-store.delete-on-commit", "true",
                "job-result-store.clean-result-ttl", "7 d"), REGISTRY, "test");

        assertThat(config.get(HighAvailabilityOptions.TYPE)).isEqualTo(HighAvailabilityType.ZOOKEEPER);
        assertThat(config.get(HighAvailabilityOptions.CLUSTER_ID)).isEqualTo("prod_1.eu-west");
        assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.get(HighAvailabilityOptions.JOB_RESULT_STORE_DELETE_ON_COMMIT)).isTrue();
        assertThat(config.get(HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL)).isEqualTo(Duration.ofDays(7));
        assertThat(HighAvailabilityOptions.TYPE.type().name()).isEqualTo("none|zookeeper");
    }

    @Test
    void clusterIdMustBeUsableAsADirectoryName() {
        for (String bad : new String[] {"a/b", "..", ".hidden", "", "with space", "x".repeat(65)}) {
            assertThatThrownBy(() -> HighAvailabilityOptions.CLUSTER_ID.parse(bad))
                    .isInstanceOf(IllegalConfigurationException.class)
                    .hasMessageContaining("high-availability.cluster-id");
        }
    }

    @Test
    void zooKeeperRootMustBeAnAbsolutePath() {
        assertThatThrownBy(() -> HighAvailabilityOptions.ZOOKEEPER_ROOT.parse("duraflow"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value 'duraflow' for high-availability.zookeeper.root:"
                        + " expected an absolute ZooKeeper path such as '/duraflow'");
        assertThatThrownBy(() -> HighAvailabilityOptions.ZOOKEEPER_ROOT.parse("/")).isInstanceOf(
                IllegalConfigurationException.class);
    }

    @Test
    void ttlAndTimeoutsMustBePositive() {
        assertThatThrownBy(() -> HighAvailabilityOptions.JOB_RESULT_STORE_CLEAN_RESULT_TTL.parse("0 s"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT.parse("0 ms"))
                .isInstanceOf(IllegalConfigurationException.class);
    }

    @Test
    void keysDoNotClashWithTheOtherCoreOptions() {
        ConfigRegistry registry = ConfigRegistry.of(ConfigRegistry.CORE_HOLDERS.toArray(new Class<?>[0]))
                .addHolder(HighAvailabilityOptions.class).addHolder(CleanupOptions.class);

        assertThat(registry.lookup("high-availability.type")).isSameAs(HighAvailabilityOptions.TYPE);
        assertThat(registry.lookup("job-result-store.delete-on-commit"))
                .isSameAs(HighAvailabilityOptions.JOB_RESULT_STORE_DELETE_ON_COMMIT);
        assertThat(registry.options()).allSatisfy(option -> assertThat(option.description()).endsWith("."));
    }
}

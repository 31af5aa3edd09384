package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.ha.ZooKeeperServerExtension;
import io.duraflow.jobmanager.JobManagerRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JobManagers with ZooKeeper high availability, each with its REST API: the standby sends
 * clients to the REST URL the leader published, and after the leader is gone the other one
 * answers itself.
 */
class RestHighAvailabilityTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private ZooKeeperServerExtension zooKeeper;
    private JobManagerRunner first;
    private JobManagerRunner second;

    @AfterEach
    void stop() {
        for (JobManagerRunner runner : new JobManagerRunner[] {first, second}) {
            if (runner != null) {
                runner.close();
            }
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private JobManagerRunner start() throws Exception {
        return JobManagerRunner.start(Configuration.fromMap(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "rest.port", "0", "high-availability.type", "zookeeper",
                "high-availability.zookeeper.quorum", zooKeeper.connectString(),
                "high-availability.storage-dir", dir.resolve("ha").toString())));
    }

    @Test
    void theStandbySendsClientsToTheLeaderUntilItLeadsItself() throws Exception {
        zooKeeper = new ZooKeeperServerExtension(dir.resolve("zk"));
        first = start();
        second = start();
        // Which one wins the election is up to ZooKeeper.
        JobManagerRunner leader = await().atMost(TIMEOUT).until(() -> {
            for (JobManagerRunner runner : List.of(first, second)) {
                if (new Http(runner.restUrl()).get("/v1/overview").status() == 200) {
                    return runner;
                }
            }
            return null;
        }, runner -> runner != null);
        JobManagerRunner standby = leader == first ? second : first;
        Http atStandby = new Http(standby.restUrl());

        Http.Answer redirect = await().atMost(TIMEOUT).until(() -> atStandby.get("/v1/jobs"),
                answer -> answer.status() == 307);
        assertThat(redirect.header("Location")).isEqualTo(leader.restUrl() + "/v1/jobs");
        assertThat(redirect.json().path("leader").path("address").asText()).isEqualTo(leader.address());
        assertThat(new Http(leader.restUrl()).get("/v1/overview").json().path("leader").path("restUrl").asText())
                .isEqualTo(leader.restUrl());

        leader.close();
        if (leader == first) {
            first = null;
        } else {
            second = null;
        }

        await().atMost(TIMEOUT).until(() -> atStandby.get("/v1/jobs").status() == 200);
        assertThat(atStandby.get("/v1/overview").json().path("leader").path("restUrl").asText())
                .isEqualTo(standby.restUrl());
    }
}

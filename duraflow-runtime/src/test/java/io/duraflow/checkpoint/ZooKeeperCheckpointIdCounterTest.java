package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.ha.ZooKeeperServerExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZooKeeperCheckpointIdCounterTest {
    @TempDir
    Path tmp;

    private ZooKeeperServerExtension zooKeeper;
    private final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        zooKeeper = new ZooKeeperServerExtension(tmp.resolve("zk"));
    }

    @AfterEach
    void stop() {
        clients.forEach(CuratorFramework::close);
        zooKeeper.close();
    }

    private CuratorFramework client() {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(zooKeeper.connectString())
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .namespace("duraflow/test-cluster")
                .build();
        client.start();
        clients.add(client);
        return client;
    }

    @Test
    void idsContinueAcrossLeadersAndNeverGoBack() throws Exception {
        ZooKeeperCheckpointIdCounter first = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        assertThat(first.get()).as("a job's restore creates the counter").isEqualTo(1);
        assertThat(first.getAndIncrement()).isEqualTo(1);
        assertThat(first.getAndIncrement()).isEqualTo(2);
        first.continueFrom(10);
        assertThat(first.getAndIncrement()).isEqualTo(10);

        // A new leader (another client, another process in real life) restores an older checkpoint.
        ZooKeeperCheckpointIdCounter second = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        second.continueFrom(3);

        assertThat(second.get()).isEqualTo(11);
        assertThat(second.getAndIncrement()).isEqualTo(11);
        ZooKeeperCheckpointIdCounter other = new ZooKeeperCheckpointIdCounter(client(), "job-2");
        other.continueFrom(1);
        assertThat(other.getAndIncrement()).isEqualTo(1);
    }

    @Test
    void twoJobManagersThatBothBelieveTheyLeadNeverGetTheSameId() throws Exception {
        ZooKeeperCheckpointIdCounter a = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        ZooKeeperCheckpointIdCounter b = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        a.get();
        b.get();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<Long>>> results = new ArrayList<>();
            for (ZooKeeperCheckpointIdCounter counter : List.of(a, b)) {
                results.add(threads.submit(() -> {
                    List<Long> ids = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        ids.add(counter.getAndIncrement());
                    }
                    return ids;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> result : results) {
                all.addAll(result.get());
            }
            assertThat(all).hasSize(100).allSatisfy(id -> assertThat(id).isBetween(1L, 100L));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void discardDeletesTheCounterAndTheJobsNodeAndIsIdempotent() throws Exception {
        ZooKeeperCheckpointIdCounter counter = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        counter.get();
        counter.getAndIncrement();
        new ZooKeeperCheckpointIdCounter(client(), "job-2").get();

        counter.discard();
        counter.discard();

        assertThat(clients.get(0).checkExists().forPath("/jobs/job-1/checkpoint-id-counter")).isNull();
        assertThat(clients.get(0).checkExists().forPath("/jobs/job-1")).isNull();
        assertThat(clients.get(0).getChildren().forPath("/jobs")).containsExactly("job-2");
    }

    /**
     * A checkpoint triggered before the job ended may draw its id after the cleanup discarded the
     * counter (or a deposed leader's may): it fails instead of creating the counter again.
     */
    @Test
    void aLateIdRequestAfterTheDiscardFailsAndLeavesNothingBehind() throws Exception {
        ZooKeeperCheckpointIdCounter running = new ZooKeeperCheckpointIdCounter(client(), "job-1");
        running.get();
        running.getAndIncrement();

        new ZooKeeperCheckpointIdCounter(client(), "job-1").discard();

        assertThatThrownBy(running::getAndIncrement).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/jobs/job-1/checkpoint-id-counter does not exist");
        assertThat(clients.get(0).checkExists().forPath("/jobs/job-1")).isNull();
    }
}

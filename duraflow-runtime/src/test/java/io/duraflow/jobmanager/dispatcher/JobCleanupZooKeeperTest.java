package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.JobManagerRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.ha.ZooKeeperServerExtension;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JobManager with ZooKeeper high availability against a real ZooKeeper server: every streaming
 * job with checkpointing gets a checkpoint id counter in ZooKeeper when it starts, and once the
 * jobs ended and were cleaned up, no znode of any of them is left. No TaskManager runs, so the
 * jobs wait for slots until they are cancelled.
 */
class JobCleanupZooKeeperTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int JOBS = 5;

    @TempDir
    Path dir;

    private ZooKeeperServerExtension zooKeeper;
    private CuratorFramework client;
    private JobManagerRunner jobManager;
    private ManagedChannel channel;

    @AfterEach
    void stop() {
        if (channel != null) {
            Rpc.shutdown(channel);
        }
        if (jobManager != null) {
            jobManager.close();
        }
        if (client != null) {
            client.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void noZNodeOfAJobOutlivesItsCleanup() throws Exception {
        zooKeeper = new ZooKeeperServerExtension(dir.resolve("zk"));
        client = CuratorFrameworkFactory.newClient(zooKeeper.connectString(), new ExponentialBackoffRetry(50, 5));
        client.start();
        jobManager = JobManagerRunner.start(Configuration.fromMap(Map.of("cluster.work-dir",
                dir.resolve("work").toString(), "jobmanager.rpc.port", "0", "high-availability.type", "zookeeper",
                "high-availability.zookeeper.quorum", zooKeeper.connectString(),
                "high-availability.storage-dir", dir.resolve("ha").toString())));
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
        DispatcherGatewayGrpc.DispatcherGatewayBlockingStub dispatcher = DispatcherGatewayGrpc.newBlockingStub(channel);

        List<String> jobIds = new ArrayList<>();
        for (int i = 1; i <= JOBS; i++) {
            String jobId = "streaming-" + i;
            jobIds.add(jobId);
            await().atMost(TIMEOUT).ignoreExceptions().until(() -> dispatcher.submitJob(SubmitJobRequest.newBuilder()
                    .setJobId(jobId).setJobClass(WordCount.class.getName()).putParams("words", "100")
                    .putAllConfig(Map.of("execution.runtime-mode", "streaming",
                            "execution.checkpointing.interval", "1s",
                            "execution.checkpointing.dir", dir.resolve("chk").toString()))
                    .build()).getJobId(), id -> !id.isEmpty());
        }
        String counters = "/duraflow/default/jobs";
        await().atMost(TIMEOUT).ignoreExceptions().untilAsserted(() -> {
            for (String jobId : jobIds) {
                assertThat(client.checkExists().forPath(counters + "/" + jobId + "/checkpoint-id-counter"))
                        .as("the counter of " + jobId + ", created by its restore").isNotNull();
            }
        });

        for (String jobId : jobIds) {
            dispatcher.cancelJob(JobIdRequest.newBuilder().setJobId(jobId).build());
        }
        await().atMost(TIMEOUT).untilAsserted(() -> {
            for (String jobId : jobIds) {
                assertThat(dispatcher.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build()).getState())
                        .isEqualTo(JobState.JOB_CANCELED);
                assertThat(cleanEntry(jobId)).as("the result entry of " + jobId + " is CLEAN").isTrue();
            }
        });

        // CLEAN is written only after every step succeeded, so nothing may be left by now.
        List<String> left = new ArrayList<>();
        collect("/", left);
        assertThat(left).as("znodes naming a job").noneMatch(path -> jobIds.stream().anyMatch(path::contains));
        assertThat(client.getChildren().forPath(counters)).isEmpty();
    }

    private boolean cleanEntry(String jobId) throws Exception {
        try (Stream<Path> files = Files.walk(dir.resolve("ha"))) {
            return files.anyMatch(file -> file.getFileName().toString().equals(jobId + ".clean.json"));
        } catch (java.io.UncheckedIOException e) {
            if (e.getCause() instanceof java.nio.file.NoSuchFileException) {
                return false; // the cleanup deleted a directory under the walk: look again at the next poll
            }
            throw e;
        }
    }

    /** Every znode under {@code path}. */
    private void collect(String path, List<String> into) throws Exception {
        for (String child : client.getChildren().forPath(path)) {
            String childPath = path.equals("/") ? "/" + child : path + "/" + child;
            into.add(childPath);
            collect(childPath, into);
        }
    }
}

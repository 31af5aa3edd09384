package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JobMaster#prepareAsync}: a slow split enumerator start (file listing) runs on another
 * executor, so the main thread (here a queue the test drains) is never blocked, and a start that
 * takes too long fails the preparation with a one-line cause.
 */
class JobMasterPrepareAsyncTest {
    private final ExecutorService io = Executors.newSingleThreadExecutor();
    /** The main thread: tasks wait here until the test runs them. */
    private final LinkedBlockingQueue<Runnable> mainThread = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        TestSources.RELEASE_SLOW_START.countDown();
        io.shutdownNow();
    }

    private void runMainThreadTasks() {
        for (Runnable task = mainThread.poll(); task != null; task = mainThread.poll()) {
            task.run();
        }
    }

    @Test
    void aSlowEnumeratorStartRunsOffTheMainThreadAndTheJobRunsAfter() throws Exception {
        TestSources.RELEASE_SLOW_START = new CountDownLatch(1);
        FakeCluster cluster = new FakeCluster(TestSources.sourceOnly(TestSources.Behaviour.SLOW_START),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 2));

        CompletableFuture<Void> prepared = cluster.job.prepareAsync(io, mainThread::add, Duration.ofSeconds(30));

        assertThat(prepared).as("the enumerator is still listing").isNotDone();
        TestSources.RELEASE_SLOW_START.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !mainThread.isEmpty());
        assertThat(prepared).as("completes only on the main thread").isNotDone();
        runMainThreadTasks();
        assertThat(prepared).isCompleted();

        cluster.job.start();
        for (Deployment d : cluster.live(SOURCE)) {
            cluster.run(d);
        }
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE))
                .containsExactlyElementsOf(JobMasterSourceSplitsTest.FOUR_SPLITS);
    }

    @Test
    void anEnumeratorStartThatTakesTooLongFailsThePreparationWithAOneLineCause() {
        TestSources.RELEASE_SLOW_START = new CountDownLatch(1);
        FakeCluster cluster = new FakeCluster(TestSources.sourceOnly(TestSources.Behaviour.SLOW_START),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 2));

        CompletableFuture<Void> prepared = cluster.job.prepareAsync(io, mainThread::add, Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(10)).until(() -> !mainThread.isEmpty());
        runMainThreadTasks();
        assertThat(prepared).isCompletedExceptionally();
        assertThatThrownBy(prepared::get).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(TimeoutException.class)
                .hasMessage("starting the split enumerators (listing the sources' input) took longer than 50 ms;"
                        + " check that the input is reachable");
        cluster.job.failBeforeStart("the job cannot start: "
                + prepared.handle((r, e) -> e.getCause().getMessage()).join());
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.gateways.deployments()).isEmpty();
    }
}
